"""Bytes-level sketch objects (no Spark): build, query and merge serialized sketches in Python.

They run the same JVM code as the SQL functions, in-process through JPype, so a sketch made by
``ecm_agg`` in any Spark cluster can be read, queried and merged here, and vice versa.

Planning is the same as in SQL: ``epsilon`` is the bound after one merge level plus
``merge_levels`` further ones, so sketches created here merge with ``ecm_agg`` sketches made with the
same arguments.

One module per family: ``ecm`` (:class:`EcmSketch`), ``counters`` (:class:`ExpHistogram`,
:class:`DetWave`), ``distinct`` (:class:`DistinctSketch`), ``dyadic`` (:class:`DyadicSketch`),
``asynchronous`` (:class:`AsyncSum`, :class:`AsyncQuantile`), ``decayed`` (:class:`DecayedSketch`),
``quantile`` (:class:`QuantileSketch`) and ``frequent`` (:class:`FrequentSketch`), over the shared
base in ``_base``.

The conversions of Python values to the JVM's types, and their validation, are in ``_convert``:
every key (or distinct-count value), single or in a batch, goes through ``_convert.jvm_keys``.
"""
from __future__ import annotations

# BUFFER_ROWS: the rows a sketch buffers before a flush, settable here (each buffered sketch reads it when made)
from ._base import BUFFER_ROWS, DEFAULT_SEED, sketch_info  # noqa: F401
from .asynchronous import AsyncQuantile, AsyncSum
from .counters import DetWave, ExpHistogram
from .decayed import DecayedSketch
from .distinct import DistinctSketch
from .dyadic import DyadicSketch
from .ecm import EcmSketch
from .frequent import FrequentSketch
from .quantile import QuantileSketch

__all__ = ["EcmSketch", "ExpHistogram", "DetWave", "DistinctSketch", "DyadicSketch", "DEFAULT_SEED",
           "AsyncSum", "AsyncQuantile", "DecayedSketch", "QuantileSketch", "FrequentSketch", "sketch_info"]
