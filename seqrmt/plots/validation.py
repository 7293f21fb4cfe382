"""Figures for the validation chapter."""
__all__: list[str] = []
