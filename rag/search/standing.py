"""How far a passage's dense cosine stands above the question's cosines to the other passages.

A raw cosine of e5 says little on its own: its scale moves with the question. A chatty question
("hey how many hrs of PTO do we earn each pay period? I've been a fed for 5 yrs") is about as
close to every passage as to the one that answers it, and a Chinese question is further from
every English passage than from every Chinese one (e5's cross-language cosines run about 0.05
lower), so a fixed standardisation refuses both. Measured against the question's own
*background* — the mean and spread of its cosines to the passages written in the same language
as the one scored — the answer stands out by the same few standard deviations whatever the
question's style or language pair::

    standing = (cosine - mean of the question's cosines to passages in that language)
               / (their standard deviation)

Measured on the tuning corpora (gate AUROC answerable vs not, e5, top hit): realdocs-tune
en-18f 0.815 -> 0.821, zh-apisix 0.720 -> 0.769, field-ext-tune clapnq 0.860 -> 0.885,
cmrc2018-trial 0.989 -> 0.988; en-18f document Recall@1 0.74 -> 0.80 (``bench/answerability.py``).

The background is every passage with a vector (full mode: the whole index, one mean and
standard deviation per language over the cosines already computed) or, while vectors are still
being embedded, the passages that have one; a language with fewer than
:data:`MIN_BACKGROUND` passages there has no standing (the gate then leaves the term out).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

MIN_BACKGROUND = 16
"""Fewer background passages of a language than this give no reliable mean and spread."""
MIN_PASSAGES = 256
"""A language with fewer passages in the corpus has no standing. In a small knowledge base
every passage is about the same few subjects, so even the one that answers stands out little:
on ``docs/`` (46 passages) the answer stands 2–2.7 standard deviations above its background,
on the tuning corpora (700–8,600 passages) 4–6, and the term would refuse there what a larger
corpus answers. (Subsets of one large corpus give the same standing down to 16 passages: it is
the subjects, not the count, but the count is what a small corpus can be told by.)"""


def eligible(chinese: BoolArray) -> dict[bool, bool]:
    """Which languages of a corpus (``chinese``: its passages written in Chinese) have enough
    passages for a standing: ``{True: Chinese, False: the others}``."""
    count = int(chinese.sum())
    return {True: count >= MIN_PASSAGES, False: len(chinese) - count >= MIN_PASSAGES}


def standing(
    dense: FloatArray,
    chinese: BoolArray,
    known: BoolArray | None = None,
    languages: dict[bool, bool] | None = None,
) -> FloatArray:
    """Each row's cosine in standard deviations above the mean cosine of the rows written in its
    language (among ``known`` rows: those with a vector); NaN for rows whose language has too
    few known rows, no spread, or (``languages``, default: :func:`eligible` of ``chinese``)
    too few passages in the corpus."""
    result = np.full(len(dense), np.nan, dtype=np.float32)
    languages = eligible(chinese) if languages is None else languages
    for is_chinese, language in ((True, chinese), (False, ~chinese)):
        if not languages[is_chinese]:
            continue
        background = language if known is None else language & known
        count = int(background.sum())
        if count < MIN_BACKGROUND:
            continue
        values = dense[background].astype(np.float64)
        mean = values.mean()
        spread = values.std()
        if spread > 0:
            result[language] = ((dense[language] - mean) / spread).astype(np.float32)
    return result


def background_standing(
    cosines: FloatArray,
    languages: BoolArray,
    dense: FloatArray,
    chinese: BoolArray,
    corpus: dict[bool, bool],
) -> tuple[FloatArray, dict[bool, tuple[float, float]]]:
    """The standing of ``dense`` (rows written in Chinese where ``chinese``) against a sample of
    background ``cosines`` (NaN: no vector) whose rows are Chinese where ``languages``; and each
    language's (mean, spread) for the bounds of a search that sees only part of the corpus.
    ``corpus``: the languages with a standing (:func:`eligible` of the whole corpus)."""
    stood = np.full(len(dense), np.nan, dtype=np.float32)
    moments: dict[bool, tuple[float, float]] = {}
    for is_chinese in (True, False):
        if not corpus[is_chinese]:
            continue
        own = (languages == is_chinese) & ~np.isnan(cosines)
        if int(own.sum()) < MIN_BACKGROUND:
            continue
        values = cosines[own].astype(np.float64)
        mean, spread = float(values.mean()), float(values.std())
        if spread > 0:
            moments[is_chinese] = (mean, spread)
            rows = chinese == is_chinese
            stood[rows] = ((dense[rows] - mean) / spread).astype(np.float32)
    return stood, moments
