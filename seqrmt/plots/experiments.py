"""Figures for the experiments chapter."""
__all__: list[str] = []
