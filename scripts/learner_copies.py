"""Keep a learner's copies of the lessons in step with the course without touching their work.

`make lab` runs this before opening JupyterLab on `learner/`. The first run writes every lesson
with its solutions stubbed (make_student_copies.py does the stubbing) and the `labkit` package the
checks import. Later runs never write over a notebook the learner has changed:

- a lesson that is new in the course is added;
- a lesson that changed in the course replaces the learner's copy only while that copy is exactly
  what was written last time (never opened and saved); otherwise the new version is written
  beside it, as `NN_name.updated.ipynb`, and the learner chooses;
- `labkit/` (the course's own code, not the learner's) is always refreshed.

What was written last is remembered in `learner/.course.json` (file hashes only).

The Chinese course (`--lang zh`, `make lab LANG=zh`) goes to `learner/zh/` the same way. Its
`labkit` is the shim that loads `learner/labkit` in Chinese, so that one is refreshed too.

    python scripts/learner_copies.py                 # notebooks/ -> learner/
    python scripts/learner_copies.py --lang zh       # notebooks/zh/ -> learner/zh/
    python scripts/learner_copies.py --out DIR       # somewhere else
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

import nbformat
from make_student_copies import LESSON_GLOB, NB_DIR, ROOT, student_notebook

MANIFEST = ".course.json"
UPDATED_SUFFIX = ".updated.ipynb"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_manifest(out: Path) -> dict[str, str]:
    try:
        return json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def sync(out: Path, src: Path = NB_DIR) -> dict[str, list[str]]:
    """Bring `out` up to date with the lessons in `src`; returns file names by what happened:
    `added`, `updated` (in place), `beside` (a new version next to the learner's copy), `kept`."""
    out.mkdir(parents=True, exist_ok=True)
    written = _read_manifest(out)  # lesson file name -> hash of the copy we last wrote
    report: dict[str, list[str]] = {"added": [], "updated": [], "beside": [], "kept": []}
    for path in sorted(src.glob(LESSON_GLOB)):
        text = nbformat.writes(student_notebook(nbformat.read(path, as_version=4)))
        new, target = _digest(text), out / path.name
        current = _digest(target.read_text(encoding="utf-8")) if target.exists() else None
        if current is None:
            report["added"].append(path.name)
        elif new in (current, written.get(path.name)):
            if current == new:  # (the learner may have taken a new version that was beside it)
                written[path.name] = new
            report["kept"].append(path.name)
            continue
        elif written.get(path.name) == current:
            report["updated"].append(path.name)  # untouched since we wrote it: nothing lost
        else:
            beside = target.with_name(target.name.removesuffix(".ipynb") + UPDATED_SUFFIX)
            beside.write_text(text, encoding="utf-8")
            report["beside"].append(beside.name)
            continue  # the learner's copy stays the one the manifest does not know
        target.write_text(text, encoding="utf-8")
        written[path.name] = new
    copy_labkit(src, out)
    (out / MANIFEST).write_text(json.dumps(written, indent=1, sort_keys=True), encoding="utf-8")
    return report


def copy_labkit(src: Path, out: Path) -> None:
    """labkit is the course's code, not the learner's: always the course's current one."""
    labkit = out / "labkit"
    if labkit.exists():
        shutil.rmtree(labkit)
    shutil.copytree(src / "labkit", labkit, ignore=shutil.ignore_patterns("__pycache__"))


MESSAGES = {
    "en": {
        "added": "added {n} lesson(s) to {out}",
        "updated": "updated (you had not changed them): {names}",
        "beside": "a new version of a lesson you have worked on is beside it: {name}",
        "same": "your lessons in {out} are up to date",
    },
    "zh": {
        "added": "已把 {n} 课加入 {out}",
        "updated": "已更新（你没有改过这些课）：{names}",
        "beside": "你做过的一课有了新版本，放在它旁边：{name}",
        "same": "{out} 里的课程已是最新",
    },
}


def describe(report: dict[str, list[str]], out: Path, lang: str = "en") -> str:
    """What `sync` did, in a few lines for the terminal, in the course's language."""
    say = MESSAGES[lang]
    lines = []
    if report["added"]:
        lines.append(say["added"].format(n=len(report["added"]), out=out))
    if report["updated"]:
        lines.append(say["updated"].format(names=", ".join(report["updated"])))
    for name in report["beside"]:
        lines.append(say["beside"].format(name=name))
    if not lines:
        lines.append(say["same"].format(out=out))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "learner")
    parser.add_argument("--src", type=Path, default=NB_DIR)
    parser.add_argument("--lang", choices=sorted(MESSAGES), default="en")
    args = parser.parse_args(argv)
    if args.lang == "en":
        print(describe(sync(args.out, args.src), args.out))
        return 0
    out = args.out / args.lang
    print(describe(sync(out, args.src / args.lang), out, args.lang))
    copy_labkit(args.src, args.out)  # the one the Chinese shim loads
    return 0


if __name__ == "__main__":
    sys.exit(main())
