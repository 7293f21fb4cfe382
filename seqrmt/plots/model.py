"""Figures for the model chapter."""
__all__: list[str] = []
