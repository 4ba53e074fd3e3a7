"""Small scenarios of every feature of the attention task, for checks against float64 numpy
(the fp32 reference kernel on the GPU, the numpy reference against a per-element loop on the CPU).
They are scenario dicts in task.yaml's vocabulary but not part of the task's scenario list."""
from __future__ import annotations


def _s(**kw) -> dict:
    base = {"batch": 2, "sq": 37, "sk": "+0", "heads": "h4kv2", "d": 64, "causal": "causal",
            "dtype": "bf16"}
    return base | kw


SMALL = {
    "dense_causal_d64": _s(),
    "dense_full_d96_mha": _s(d=96, heads="h3kv3", causal="full"),
    "dense_causal_d128_mqa": _s(d=128, heads="h4kv1", sq=70),
    "dense_causal_d192_gqa3": _s(d=192, heads="h6kv2", sq=19),
    "dense_full_d256": _s(d=256, causal="full", sq=33),
    "varlen_causal": _s(batch=4, sq="1,17,64,90"),
    "chunked_causal": _s(batch=3, sq="5,40,1", sk="+20,70,3", d=128),
    "chunked_full": _s(batch=2, sq="16,3", sk="+50", causal="full"),
    "q_longer_than_k": _s(batch=3, sq="30,8,4", sk="20,1,4"),
    "empty_kv": _s(batch=3, sq="5,5,5", sk="9,0,4", causal="full"),
    "paged16_decode": _s(batch=5, sq=1, sk="rand:1-120", page=16, d=128, heads="h8kv2"),
    "paged64_specdec": _s(batch=3, sq=4, sk="+rand:30-200", page=64, heads="h8kv1"),
    "paged256_chunked": _s(batch=2, sq="40,7", sk="+rand:100-300", page=256, d=96),
    "paged16_q_longer_than_k": _s(batch=3, sq="30,8,4", sk="20,1,4", page=16),
    "window_left_causal": _s(sq=90, wl=13),
    "window_both_full": _s(sq=90, wl=9, wr=5, causal="full"),
    "window_right_only_full": _s(sq=60, wr=3, causal="full"),
    "window_left_only_full": _s(sq=60, wl=7, causal="full"),
    "window_zero": _s(sq=40, wl=0),
    "window_paged_decode": _s(batch=3, sq=2, sk="+rand:50-150", page=16, wl=31),
    "softcap_causal": _s(softcap=30.0, qscale=20.0, d=128),
    "softcap_window_paged": _s(batch=3, sq=3, sk="+rand:40-90", page=16, softcap=50.0, qscale=30.0, wl=20, d=256, heads="h4kv2"),
    "f16_dense": _s(dtype="f16"),
    "f16_paged_softcap_window": _s(batch=3, sq="1,6,20", sk="+rand:20-80", page=16, softcap=30.0, qscale=20.0, wl=15, dtype="f16", d=128),
}
