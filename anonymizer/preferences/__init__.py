"""Location-privacy-preference recommendation under local differential privacy (issue 8); no Django here.

Asada, Yoshikawa & Cao, "When and where do you want to hide?" (2019): an item is a (time slot, place) pair, a
rating says whether the user is fine with publishing their location there and then (1) or wants it hidden (0),
and matrix factorization predicts the ratings a user has not given. The server is untrusted, so users perturb
everything they send under epsilon-local differential privacy (Shin et al., TKDE 2018).

- ``checkins``: read the Foursquare NYC check-ins and user-uploaded preference CSVs into arrays.
- ``items``: the item space (time slots x place categories or grid areas) and its display labels.
- ``labels``: the documented PROXY rule deriving 0/1 preferences from check-ins (no public labels exist).
- ``ratings``: the sparse user x item rating set the models train on.
- ``mf``: non-private matrix factorization by gradient descent, and the item-mean / user-mean baselines.
- ``ldp``: the local randomizers, the LDP matrix factorization, the privacy accountant, a portable PRNG.
- ``experiment``: k-fold cross-validation over users and the paper's sweeps (Figures 3-5).
"""
