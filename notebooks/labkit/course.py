"""The course map: every lesson with its time, difficulty and what to have done first.

One list, read by lesson 01 (`course.show()`), the HTML export's index (scripts/export_html.py)
and checked against the README's table by the tests, so the three never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    number: str
    file: str
    title: str
    minutes: int
    level: str  # "intro", "core" or "advanced"
    after: tuple[str, ...]  # lesson numbers to have done first


COURSE: tuple[Lesson, ...] = (
    Lesson("01", "01_start_here.ipynb", "Start here", 15, "intro", ()),
    Lesson(
        "02",
        "02_computation_graphs.ipynb",
        "Computation graphs and define-by-run",
        25,
        "intro",
        ("01",),
    ),
    Lesson("03", "03_leaf_and_non_leaf.ipynb", "Leaf and non-leaf tensors", 30, "core", ("02",)),
    Lesson("04", "04_backward_in_depth.ipynb", "backward() in depth", 30, "core", ("03",)),
    Lesson("05", "05_gradient_accumulation.ipynb", "Gradient accumulation", 30, "core", ("04",)),
    Lesson(
        "06",
        "06_retain_graph.ipynb",
        "retain_graph, create_graph and higher derivatives",
        30,
        "core",
        ("04",),
    ),
    Lesson("07", "07_switching_autograd_off.ipynb", "Switching autograd off", 30, "core", ("03",)),
    Lesson(
        "08",
        "08_inplace_and_versions.ipynb",
        "In-place operations and version counters",
        40,
        "advanced",
        ("06", "07"),
    ),
    Lesson("09", "09_hooks.ipynb", "Hooks", 40, "advanced", ("06",)),
    Lesson("10", "10_custom_functions.ipynb", "Custom autograd Functions", 40, "advanced", ("08",)),
    Lesson("11", "11_debugging_gradients.ipynb", "Debugging gradients", 40, "advanced", ("09",)),
    Lesson("12", "12_inside_the_engine.ipynb", "Inside the engine", 40, "advanced", ("09",)),
    Lesson("13", "13_myths_and_facts.ipynb", "Myths and facts", 45, "advanced", ("08", "10", "12")),
    Lesson(
        "14",
        "14_capstone.ipynb",
        "Capstone: handwritten digits, an MLP and a CNN",
        45,
        "core",
        ("05", "07"),
    ),
    Lesson(
        "15",
        "15_broadcasting_and_gradients.ipynb",
        "Broadcasting and gradients",
        35,
        "core",
        ("04", "08"),
    ),
    Lesson(
        "16",
        "16_memory.ipynb",
        "Memory: what autograd keeps alive",
        40,
        "advanced",
        ("06", "07", "09"),
    ),
    Lesson(
        "17",
        "17_forward_mode_and_functional.ipynb",
        "Forward mode and the functional API",
        45,
        "advanced",
        ("06", "10"),
    ),
)


def table() -> list[str]:
    """The map as text lines: number, title, time, level, prerequisites."""
    lines = []
    for lesson in COURSE:
        first = ", ".join(lesson.after) or "nothing"
        lines.append(
            f"{lesson.number}  {lesson.title} ({lesson.minutes} min, {lesson.level}; after {first})"
        )
    return lines


def show() -> None:
    """Print the course map (lesson 01 does)."""
    total = sum(lesson.minutes for lesson in COURSE)
    print(f"{len(COURSE)} lessons, about {total / 60:.0f} hours in all:")
    for line in table():
        print("  " + line)
