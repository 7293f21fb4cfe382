"""Figures for the attention chapter."""
__all__: list[str] = []
