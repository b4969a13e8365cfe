"""Private helpers shared by every layer: input validation, frames, sample weights, score
helpers, BLAS threads, parameter names, compiled-kernel loading. Nothing here knows a model.
"""
