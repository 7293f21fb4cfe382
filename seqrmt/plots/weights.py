"""Figures for the weights chapter."""
__all__: list[str] = []
