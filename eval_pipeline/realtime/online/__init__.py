"""Online estimates: production traffic sampled, scored and estimated (docs/DESIGN.md section 10).

``sampler`` (Poisson sampling with known inclusion probabilities), ``sample`` (a day's sample,
stored with its probabilities), ``scoring`` (the sample scored by the production suite),
``estimates`` (Hajek means and their intervals), ``scores`` (per slice, beside the deployed
build's offline scores), ``drift`` (where the datasets no longer resemble the traffic),
``planning`` (which days the flagged-trace sensor asks to score). Never imports dagster; the
assets in ``defs/online_assets.py`` are thin shells over these functions.
"""
