"""Figures for the spikes chapter."""
__all__: list[str] = []
