"""Figures for the bulk chapter."""
__all__: list[str] = []
