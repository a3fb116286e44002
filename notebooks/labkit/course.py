"""The course map: every lesson with its time, difficulty and what to have done first.

One list, read by lesson 01 (`course.show()`), the HTML export's index (scripts/export_html.py)
and checked against the README's table by the tests, so the three never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .language import say

LEVELS_ZH = {"intro": "入门", "core": "核心", "advanced": "进阶"}


@dataclass(frozen=True)
class Lesson:
    number: str
    file: str
    title: str
    title_zh: str
    minutes: int
    level: str  # "intro", "core" or "advanced"
    after: tuple[str, ...]  # lesson numbers to have done first


COURSE: tuple[Lesson, ...] = (
    Lesson("01", "01_start_here.ipynb", "Start here", "从这里开始", 15, "intro", ()),
    Lesson(
        "02",
        "02_computation_graphs.ipynb",
        "Computation graphs and define-by-run",
        "计算图与 define-by-run",
        25,
        "intro",
        ("01",),
    ),
    Lesson(
        "03",
        "03_leaf_and_non_leaf.ipynb",
        "Leaf and non-leaf tensors",
        "叶子张量与非叶子张量",
        30,
        "core",
        ("02",),
    ),
    Lesson(
        "04",
        "04_backward_in_depth.ipynb",
        "backward() in depth",
        "深入 backward()",
        30,
        "core",
        ("03",),
    ),
    Lesson(
        "05",
        "05_gradient_accumulation.ipynb",
        "Gradient accumulation",
        "梯度累积",
        30,
        "core",
        ("04",),
    ),
    Lesson(
        "06",
        "06_retain_graph.ipynb",
        "retain_graph, create_graph and higher derivatives",
        "retain_graph、create_graph 与高阶导数",
        30,
        "core",
        ("04",),
    ),
    Lesson(
        "07",
        "07_switching_autograd_off.ipynb",
        "Switching autograd off",
        "关闭 autograd",
        30,
        "core",
        ("03",),
    ),
    Lesson(
        "08",
        "08_inplace_and_versions.ipynb",
        "In-place operations and version counters",
        "原地操作与版本计数器",
        40,
        "advanced",
        ("06", "07"),
    ),
    Lesson("09", "09_hooks.ipynb", "Hooks", "钩子", 40, "advanced", ("06",)),
    Lesson(
        "10",
        "10_custom_functions.ipynb",
        "Custom autograd Functions",
        "自定义 autograd Function",
        40,
        "advanced",
        ("08",),
    ),
    Lesson(
        "11",
        "11_debugging_gradients.ipynb",
        "Debugging gradients",
        "调试梯度",
        40,
        "advanced",
        ("09",),
    ),
    Lesson(
        "12",
        "12_inside_the_engine.ipynb",
        "Inside the engine",
        "深入引擎内部",
        40,
        "advanced",
        ("09",),
    ),
    Lesson(
        "13",
        "13_myths_and_facts.ipynb",
        "Myths and facts",
        "误解与事实",
        45,
        "advanced",
        ("08", "10", "12"),
    ),
    Lesson(
        "14",
        "14_broadcasting_and_gradients.ipynb",
        "Broadcasting and gradients",
        "广播与梯度",
        35,
        "core",
        ("04", "08"),
    ),
    Lesson(
        "15",
        "15_memory.ipynb",
        "Memory: what autograd keeps alive",
        "内存：autograd 留住了哪些张量",
        40,
        "advanced",
        ("06", "07", "09"),
    ),
    Lesson(
        "16",
        "16_forward_mode_and_functional.ipynb",
        "Forward mode and the functional API",
        "前向模式与函数式 API",
        45,
        "advanced",
        ("06", "10"),
    ),
    Lesson(
        "17",
        "17_capstone.ipynb",
        "Capstone: debug, extend and fit a training script",
        "综合项目：调试、扩展训练脚本，并装进内存预算",
        60,
        "advanced",
        ("10", "14", "15"),
    ),
    Lesson(
        "18",
        "18_build_your_own_autograd.ipynb",
        "Build your own autograd",
        "动手写一个自己的 autograd",
        75,
        "advanced",
        ("12", "14"),
    ),
    Lesson(
        "19",
        "19_autograd_at_scale.ipynb",
        "Autograd at scale",
        "大规模训练中的 autograd",
        75,
        "advanced",
        ("09", "15", "17"),
    ),
)


def table() -> list[str]:
    """The map as text lines: number, title, time, level, prerequisites."""
    lines = []
    for lesson in COURSE:
        first, first_zh = ", ".join(lesson.after), "、".join(lesson.after)
        lines.append(
            say(
                f"{lesson.number}  {lesson.title} ({lesson.minutes} min, {lesson.level}; "
                f"after {first or 'nothing'})",
                f"{lesson.number}  {lesson.title_zh}（{lesson.minutes} 分钟，"
                f"{LEVELS_ZH[lesson.level]}；先修：{first_zh or '无'}）",
            )
        )
    return lines


def show() -> None:
    """Print the course map (lesson 01 does)."""
    total = sum(lesson.minutes for lesson in COURSE)
    print(
        say(
            f"{len(COURSE)} lessons, about {total / 60:.0f} hours in all:",
            f"共 {len(COURSE)} 课，总计约 {total / 60:.0f} 小时：",
        )
    )
    for line in table():
        print("  " + line)
