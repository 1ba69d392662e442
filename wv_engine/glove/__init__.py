"""GloVe: weighted least squares on the co-occurrence counts, trained with
AdaGrad as Stanford's glove.c, on a grid of word bands or in glove.c's
order, in memory or out of core. The model (model.py) and its checkpoint
(state.py); the counting it trains on is the shared core's (cooccur.py)."""

from .model import OUTPUTS, GloVe, GloVeEpoch, GloVeStats

__all__ = ["OUTPUTS", "GloVe", "GloVeEpoch", "GloVeStats"]
