"""Lesson 16's checks in Chinese: for each exercise, the solution and the usual slips."""

from __future__ import annotations

import warnings

import pytest
from labkit.lesson16 import check_hvp, check_jacobian, check_jvp
from test_chinese_lessons import chinese_only
from test_lesson16 import (
    _accumulated_hvp,
    _accumulated_rows,
    _by_jvp,
    _cheaper,
    _columns,
    _dual_jvp,
    _finite_differences,
    _fixed_sizes,
    _gradient,
    _hessian_by_rows,
    _hvp,
    _no_passes,
    _ones_vjp,
    _row_sums,
    _rows,
    _trick_jvp,
    _trick_per_column,
)

import minigrad as mg


def passed(out: str) -> bool:
    chinese_only(out)
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    chinese_only(out)
    return out.startswith("✗") and all(word in out for word in words)


# --- the forward-mode exercise -----------------------------------------------------------------


def test_17_jvp_in_chinese(chinese, said):
    assert passed(said(check_jvp, _dual_jvp))
    assert failed_with(said(check_jvp, _trick_jvp), "跑了 2 次反向传播", "反向模式")
    assert failed_with(said(check_jvp, _finite_differences), "是有限差分给出的", "直通")
    library = said(check_jvp, lambda f, x, v: mg.func.jvp(f, (x,), (v,)))
    assert failed_with(library, "库函数干的")


# --- exercise 2: a Jacobian, the cheaper way ---------------------------------------------------


def test_17_jacobian_solution_in_chinese(chinese, said):
    out = said(check_jacobian, _cheaper())
    assert passed(out) and "雅可比矩阵，走更省的方向" in out and "「宽」的 f 按行" in out


def test_17_jacobian_stub_and_non_answers_in_chinese(chinese, said):
    def stub(f, x): ...

    assert failed_with(said(check_jacobian, stub), "还是 `...`", "卡住了？运行 `hint()`")
    assert failed_with(said(check_jacobian, 3), "应当是函数")
    assert failed_with(said(check_jacobian, lambda f, x: "J"), "你返回的是 str")


def test_17_jacobian_the_costlier_direction_in_chinese(chinese, said):
    assert failed_with(said(check_jacobian, _rows), "「高」的 f", "按行算的", "这里按列更省")
    assert failed_with(said(check_jacobian, _columns), "「宽」的 f", "按列算的", "这里按行更省")
    assert failed_with(said(check_jacobian, _cheaper(_trick_per_column)), "每列两次", "总共 3 次")
    assert failed_with(said(check_jacobian, _cheaper(_by_jvp)), "来自前向模式", "双重反向技巧")


def test_17_jacobian_library_and_formulas_in_chinese(chinese, said):
    library = said(check_jacobian, lambda f, x: mg.autograd.functional.jacobian(f, x))
    assert failed_with(library, "mg.autograd.functional.jacobian 干的")
    assert failed_with(said(check_jacobian, _no_passes), "一次反向传播都没有运行")


def test_17_jacobian_wrong_matrices_in_chinese(chinese, said):
    assert failed_with(said(check_jacobian, lambda f, x: _cheaper()(f, x).T), "转置")
    listed = said(check_jacobian, _cheaper(lambda f, x: _columns(f, x, stack=False)))
    assert failed_with(listed, "转置", "dim=1")
    assert failed_with(said(check_jacobian, _accumulated_rows), "累积")
    assert failed_with(said(check_jacobian, _ones_vjp), "全为 1")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"retain": False}, ["retain_graph=True", "释放"]),
        ({"create_graph": False}, ["create_graph=True", "自己建出计算图"]),
        ({"u_grad": False}, ["requires_grad=True", "哑变量 u"]),
    ],
)
def test_17_jacobian_errors_explained_in_chinese(chinese, said, options, words):
    out = said(check_jacobian, _cheaper(lambda f, x: _columns(f, x, **options)))
    assert failed_with(out, "抛出了 RuntimeError", *words)


def test_17_jacobian_fixed_sizes_in_chinese(chinese, said):
    assert failed_with(said(check_jacobian, _fixed_sizes), "IndexError", "不要写死")


# --- exercise 2: a Hessian-vector product ------------------------------------------------------


def test_17_hvp_solution_in_chinese(chinese, said):
    out = said(check_hvp, _hvp)
    assert passed(out) and "黑塞-向量积" in out and "两次反向传播" in out


def test_17_hvp_stub_and_formula_in_chinese(chinese, said):
    def stub(f, x, v): ...

    assert failed_with(said(check_hvp, stub), "还是 `...`", "应当返回 Hv")
    assert failed_with(said(check_hvp, lambda f, x, v: mg.zeros(3)), "一次反向传播都没有运行")


def test_17_hvp_the_whole_hessian_in_chinese(chinese, said):
    library = said(check_hvp, lambda f, x, v: mg.autograd.functional.hessian(f, x) @ v)
    assert failed_with(library, "整个黑塞矩阵（8×8）", "9 次")
    assert failed_with(said(check_hvp, _hessian_by_rows), "8 个输入你的函数跑了 9 次反向传播")

    products = said(check_hvp, lambda f, x, v: mg.autograd.functional.vhp(f, x, v)[1])
    assert failed_with(products, "mg.autograd.functional.vhp 干的")


def test_17_hvp_wrong_vectors_in_chinese(chinese, said):
    assert failed_with(said(check_hvp, _gradient), "这是梯度 g")
    assert failed_with(said(check_hvp, lambda f, x, v: _gradient(f, x, v) * v), "逐元素相乘")
    assert failed_with(said(check_hvp, _row_sums), "H·1")
    with warnings.catch_warnings():  # backward(create_graph=True) warns of a reference cycle
        warnings.simplefilter("ignore")
        assert failed_with(said(check_hvp, _accumulated_hvp), "g + Hv")

    assert failed_with(said(check_hvp, lambda f, x, v: 2 * _hvp(f, x, v)), "个元素不对")
    longer = said(check_hvp, lambda f, x, v: mg.tensor(_hvp(f, x, v).numpy().tolist() + [0.0]))
    assert failed_with(longer, "形状为 (8,)")


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda f, x, v: mg.autograd.grad(mg.autograd.grad(f(x), x)[0], x, v)[0], ["create_graph"]),
        (
            lambda f, x, v: mg.autograd.grad(mg.autograd.grad(f(x), x, create_graph=True)[0], x)[0],
            ["grad_outputs="],
        ),
        (lambda f, x, v: _hvp(f, x, v[:3]), ["形状必须"]),
    ],
)
def test_17_hvp_errors_explained_in_chinese(chinese, said, answer, words):
    assert failed_with(said(check_hvp, answer), "抛出了 RuntimeError", *words)
