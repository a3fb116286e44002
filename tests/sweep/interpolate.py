"""Sample lists of F.interpolate: nearest, nearest-exact, (bi)linear and area modes on 3-d and
4-d inputs, by size or scale factor, and PyTorch's argument errors."""

from __future__ import annotations

from .families import A, S

INTERPOLATE = (
    # nearest and nearest-exact, 3-d and 4-d
    S("2x3x5,size8", A(2, 3, 5), 8),
    S("2x3x5,size3", A(2, 3, 5), size=3),
    S("2x3x5,sf2", A(2, 3, 5), scale_factor=2),
    S("2x3x5,sf1.7", A(2, 3, 5), scale_factor=1.7),
    S("2x3x5,sf0.5,exact", A(2, 3, 5), scale_factor=0.5, mode="nearest-exact"),
    S("2x3x5,size7,exact", A(2, 3, 5), 7, mode="nearest-exact"),
    S("1x2x4x5,size(6,3)", A(1, 2, 4, 5), (6, 3)),
    S("1x2x4x5,sf(2,1.5)", A(1, 2, 4, 5), scale_factor=(2, 1.5)),
    S("1x2x4x5,sf2.5,recompute", A(1, 2, 4, 5), None, 2.5, recompute_scale_factor=True),
    S("1x2x4x5,size(7,9),exact", A(1, 2, 4, 5), (7, 9), mode="nearest-exact"),
    S("0x2x4x5,sf2", A(0, 2, 4, 5), scale_factor=2),
    # linear (3-d) and bilinear (4-d), with and without align_corners
    S("2x3x5,size8,linear", A(2, 3, 5), 8, mode="linear"),
    S("2x3x5,size8,linear,ac", A(2, 3, 5), 8, None, "linear", True),
    S("2x3x5,size3,linear", A(2, 3, 5), 3, mode="linear", align_corners=False),
    S("2x3x5,size5,linear", A(2, 3, 5), 5, mode="linear"),
    S("2x3x1,size4,linear,ac", A(2, 3, 1), 4, mode="linear", align_corners=True),
    S("2x3x5,sf1.7,linear", A(2, 3, 5), scale_factor=1.7, mode="linear"),
    S("2x3x5,sf2,linear,recompute", A(2, 3, 5), None, 2.0, "linear", None, True),
    S("1x2x4x5,size(6,3),bilinear", A(1, 2, 4, 5), (6, 3), mode="bilinear"),
    S(
        "1x2x4x5,sf2,bilinear,ac",
        A(1, 2, 4, 5),
        scale_factor=2,
        mode="bilinear",
        align_corners=True,
    ),
    S("1x2x4x5,sf(0.5,1.5),bilinear", A(1, 2, 4, 5), scale_factor=(0.5, 1.5), mode="bilinear"),
    S("1x2x1x1,size(3,2),bilinear,ac", A(1, 2, 1, 1), (3, 2), mode="bilinear", align_corners=True),
    # area: adaptive average pooling
    S("2x3x6,size3,area", A(2, 3, 6), 3, mode="area"),
    S("1x2x4x6,sf0.5,area", A(1, 2, 4, 6), scale_factor=0.5, mode="area"),
    # PyTorch's errors
    S("size and sf", A(2, 3, 5), 4, 2.0, _error=True),
    S("neither", A(2, 3, 5), _error=True),
    S("nearest,ac", A(2, 3, 5), 4, align_corners=False, _error=True),
    S("3d,bilinear", A(2, 3, 5), 4, mode="bilinear", _error=True),
    S("4d,linear", A(1, 2, 4, 5), 4, mode="linear", _error=True),
    S("bogus mode", A(2, 3, 5), 4, mode="bogus", _error=True),
    S("2d input", A(3, 5), 4, _error=True),
    S("size(2,)", A(1, 2, 4, 5), (2,), _error=True),
    S("sf(2,)", A(1, 2, 4, 5), scale_factor=(2,), _error=True),
    S("size(2.0,3)", A(1, 2, 4, 5), (2.0, 3), _error=True),
    S("size0", A(2, 3, 5), 0, _error=True),
    S("sf0.1", A(2, 3, 5), scale_factor=0.1, _error=True),
    S("recompute with size", A(2, 3, 5), 4, recompute_scale_factor=True, _error=True),
    S("antialias nearest", A(1, 2, 4, 5), 4, antialias=True, _error=True),
    S("1x0x5", A(1, 0, 5), 4, _error=True),
    S("bicubic 3d", A(2, 3, 5), 4, mode="bicubic", _error=True),
)
