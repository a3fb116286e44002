"""A player as one self-contained HTML page: its state, its front end and player.css, all inline.

The page runs the same front end as the notebook widget, handed a small stand-in for the widget
model (get/set/on/off/save_changes/send) that reads the state embedded in the page. It loads
nothing (a Content-Security-Policy forbids every fetch; only `blob:` images, which the page makes
itself for its minimap, are allowed), so it replays from a file:// URL, an e-mail attachment or a
course website without a kernel or a network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .front_end import player_module
from .labels import escape_html

EXPORT_LINE = "export default { render };"  # the last line of player.js: an ES module for anywidget

BOOT = """
const state = JSON.parse(document.getElementById("mg-state").textContent);
const model = { // nothing changes the state from outside: no kernel, no events
  get: (name) => state[name],
  set: (name, value) => { state[name] = value; },
  save_changes() {},
  send() {}, // module boxes stay as they are (opening one needs a new layout)
  on() {},
  off() {},
};
render({ model, el: document.getElementById("mg-replay") });
"""

PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';
    img-src blob:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ margin: 16px; font-family: sans-serif; }}
{css}
</style>
</head>
<body>
<h1 style="font-size: 16px">{title}</h1>
<div id="mg-replay"></div>
<script type="application/json" id="mg-state">{state}</script>
<script>
(() => {{
{js}
{boot}
}})();
</script>
</body>
</html>
"""


def _inline(text: str, tag: str) -> str:
    """`text` as the body of a `<tag>` element: it must not end the element early."""
    if f"</{tag}" in text.lower() or "<!--" in text:
        raise ValueError(f"cannot inline text containing </{tag} or <!--")
    return text


def replay_html(state: dict[str, Any], title: str, here: Path, lang: str = "en") -> str:
    """The page for a player whose synced traits are `state`; `here` holds player.css."""
    js = player_module()
    if EXPORT_LINE not in js:
        raise ValueError(f"player.js no longer ends with {EXPORT_LINE!r}")
    js = js.replace(EXPORT_LINE, "")  # a plain script here: `render` is in scope for BOOT
    css = (here / "player.css").read_text(encoding="utf-8")
    data = json.dumps(state, ensure_ascii=False).replace("<", "\\u003c")  # no tag inside
    return PAGE.format(
        lang="zh-CN" if lang == "zh" else "en",
        title=escape_html(title),
        css=_inline(css, "style"),
        state=data,
        js=_inline(js, "script"),
        boot=BOOT,
    )
