"""Every word the explorer shows, in each language it speaks: one catalog for Python and player.js.

Keys name a place (`step.ready`, `ui.legend.current`); values are `(English, Chinese)` format
strings with `{named}` fields. Python writes the step texts, summaries and pictures with `say`;
the player's front end gets the `ui.` entries (and the node kinds' names) of its language with
its other data (`front_end`), so player.js holds no words of its own and a saved replay keeps
its language. API names (MulBackward0, AccumulateGrad, grad_output, retain_graph, .grad) stay
as they are.
"""

from __future__ import annotations

from .language import LANGUAGES, resolve

TEXTS: dict[str, tuple[str, str]] = {
    # --- the engine's steps (frames.py) -------------------------------------------------------
    "step.seed": ("the seed", "初始梯度"),
    "step.forward": ("forward", "前向"),
    "step.double_backward": ("backward with create_graph", "create_graph 的反向传播"),
    "step.node_created": (
        "{when}: {node} created, output {shape}",
        "{when}：创建 {node}，输出 {shape}",
    ),
    "step.created_from": (" from {args}", "，输入 {args}"),
    "step.tangent": ("; its tangent {tangent}", "；它的切向量 {tangent}"),
    # --- forward_and_reverse (modes.py) -------------------------------------------------------
    "modes.forward": (
        "Forward mode: one pass on dual inputs gives f(x) and J·v (each node's tangent below it)",
        "前向模式：对偶输入跑一遍，同时得到 f(x) 和 J·v（每个节点的切向量标在它下面）",
    ),
    "modes.backward": (
        "Reverse mode: one backward pass gives vᵀJ for every input at once",
        "反向模式：一次反向传播，同时得到所有输入的 vᵀJ",
    ),
    "step.backward_start": (
        "backward #{n} from {roots}{mode}: {count} nodes wait for gradients",
        "第 {n} 次反向传播，从 {roots} 开始{mode}：{count} 个节点在等待梯度",
    ),
    "step.retain_graph": (", retain_graph={value}", "，retain_graph={value}"),
    "step.create_graph": (", create_graph=True", "，create_graph=True"),
    "step.edge": ("{source} → {target}: gradient {grad}", "{source} → {target}：梯度 {grad}"),
    "step.buffer_sum": (
        "{node} sums its inputs: {before} + {added} = {after}",
        "{node} 把收到的梯度相加：{before} + {added} = {after}",
    ),
    "step.ready": (
        "{node} is ready (every gradient it waits for has arrived); queue: {queue}",
        "{node} 已就绪（它等待的梯度都已到达）；就绪队列：{queue}",
    ),
    "step.node_start": ("run {node} on grad_output {grads}", "运行 {node}，grad_output 为 {grads}"),
    "step.node_run": ("{node} returned grad_inputs {grads}", "{node} 返回 grad_inputs {grads}"),
    "step.accumulate": (
        "{leaf}.grad: {before} + {added} → {after}",
        "{leaf}.grad：{before} + {added} → {after}",
    ),
    "step.capture": (
        "autograd.grad captures {grad} for input {index}",
        "autograd.grad 为第 {index} 个输入取得梯度 {grad}",
    ),
    "step.freed": (
        "{node} frees its saved tensors ({names}): retain_graph was not set",
        "{node} 释放了它保存的张量（{names}）：没有设置 retain_graph",
    ),
    "step.error": ("{error} in {node}: {message}", "{node} 中出现 {error}：{message}"),
    "step.backward_end": ("backward #{n} finished", "第 {n} 次反向传播结束"),
    "step.output_of": ("output of {node}", "{node} 的输出"),
    "step.tensor": ("tensor", "张量"),
    "list.empty": ("(empty)", "（空）"),
    "list.sep": (", ", "、"),
    "list.more": ("{names} and {n} more", "{names} 等，另有 {n} 个"),
    # --- hooks (hooks.py) ---------------------------------------------------------------------
    "hook.tensor": ("tensor hook", "张量钩子"),
    "hook.retain_grad": ("retain_grad", "retain_grad"),
    "hook.pre": ("pre-hook", "前置钩子 (pre-hook)"),
    "hook.post": ("post-hook", "后置钩子 (post-hook)"),
    "hook.post_accumulate": ("post-accumulate-grad hook", "梯度累积后钩子"),
    "hook.module_pre": ("module backward pre-hook", "模块反向前置钩子"),
    "hook.module": ("module backward hook", "模块反向钩子"),
    "hook.lambda_at": ("<lambda> at {where} line {line}", "<lambda>（{where} 第 {line} 行）"),
    "hook.cell": ("cell", "单元格"),
    "hook.numbered": ("hook {k} of {owner}", "{owner} 的第 {k} 个钩子"),
    "hook.none": ("(none)", "（无）"),
    "hook.output": ("the output of {owner}", "{owner} 的输出"),
    "hook.output_slot": ("output {slot} of {owner}", "{owner} 的第 {slot} 个输出"),
    "hook.replaced": ("replacement gradients", "替换后的梯度"),
    "hook.same": ("the same gradients", "原样的梯度"),
    "hook.unchanged": ("None (gradient unchanged)", "None（梯度不变）"),
    "hook.passes_on": (
        "{owner} passes its {what} on for its backward hooks",
        "{owner} 把它的 {what} 交给它的反向钩子",
    ),
    "hook.retain_text": (
        "retain_grad on {owner}: {owner}.grad = {saw}",
        "{owner} 上的 retain_grad：{owner}.grad = {saw}",
    ),
    "hook.accumulate_text": (
        "{kind} {fn} on {owner}: saw {owner}.grad = {saw}",
        "{owner} 上的{kind} {fn}：看到 {owner}.grad = {saw}",
    ),
    "hook.text": (
        "{kind} {fn} on {owner}: saw {what}{saw}, returned {returned}",
        "{owner} 上的{kind} {fn}：收到 {what}{saw}，返回 {returned}",
    ),
    # --- array summaries (labels.py); min/max/mean are numpy's own names ----------------------
    "array.empty_shape": ("[] of shape {shape}", "[]，形状 {shape}"),
    "array.finite": ("{counts}; the {n} finite: {stats}", "{counts}；其中 {n} 个有限值：{stats}"),
    "array.first_values": (
        "{head}, the first {k:,} of {n:,} values in row-major order:",
        "{head}，按行优先顺序的前 {k:,} 个值（共 {n:,} 个）：",
    ),
    "array.empty": ("{shape} empty", "{shape} 空"),
    # --- the summary line and the pictures (model.py, view.py, dot.py) -------------------------
    "graph.head": ("{nodes} {nodes_word}, {edges} {edges_word}", "{nodes} 个节点，{edges} 条边"),
    "graph.parts": (": {parts}", "：{parts}"),
    "graph.part": ("{n} {word}", "{n} 个{word}"),
    "graph.collapsed": ("; collapsed: {names}", "；已折叠：{names}"),
    "graph.collapsed_auto": ("; collapsed automatically: {names}", "；已自动折叠：{names}"),
    "graph.cut": (
        "; drawn: the {k:,} elements nearest the roots, {n:,} more nodes in one box",
        "；只画出离根最近的 {k:,} 个元素，另外 {n:,} 个节点收在一个框里",
    ),
    "graph.model": ("(model)", "（模型）"),
    "module.root": ("{cls} (the model)", "{cls}（模型）"),
    "node.output": ("output", "输出"),
    "node.constant": ("constant", "常量"),
    "node.leaf": ("leaf", "叶子"),
    "node.saved": ("saved {name}", "保存的 {name}"),
    "box.more_title": ("+{n:,} more nodes", "另有 {n:,} 个节点"),
    "graph.alt": ("graph: {summary}", "计算图：{summary}"),
    "kind.tensor": ("non-leaf tensor", "非叶子张量"),
    "kind.leaf": ("leaf requiring grad", "需要梯度的叶子"),
    "kind.constant": ("constant leaf", "常量叶子"),
    "kind.backward": ("backward node", "反向节点"),
    "kind.accumulate": ("AccumulateGrad", "AccumulateGrad"),
    "kind.saved": ("saved tensor", "保存的张量"),
    "kind.module": ("collapsed module", "折叠的模块"),
    "kind.more": ("nodes cut for size", "因篇幅省略的节点"),
    "box.more_tip": (
        "nodes farther from the roots, cut to keep the drawing small enough",
        "离根较远的节点，为了让图不至于太大而省略",
    ),
    "box.more_line": (
        "draw a smaller part (an intermediate tensor) to see them",
        "画其中一小部分（某个中间张量）就能看到它们",
    ),
    "box.module_tip": (
        "{path}: a collapsed module (a player opens it)",
        "{path}：折叠的模块（在播放器中点击可展开）",
    ),
    "box.inside": ("{n} nodes inside", "内含 {n} 个节点"),
    "box.cluster_tip": (
        "{path}: a player closes it on a click on the frame",
        "{path}：在播放器中点击边框可折叠",
    ),
    "node.freed": ("freed", "已释放"),
    "legend.shape": (
        "[2, 3] under a name: the tensor's shape ([] is a scalar)",
        "名字下的 [2, 3]：张量的形状（[] 表示标量）",
    ),
    # --- a node's hover text (tips.py) ---------------------------------------------------------
    "tip.shape": ("shape {shape}", "形状 {shape}"),
    "tip.scalar": ("shape {shape}: a scalar (no dimensions)", "形状 {shape}：标量（没有维度）"),
    "tip.shape_backward": (
        "shape {shape}: of its forward output, so of the gradient it receives",
        "形状 {shape}：它的前向输出的形状，也就是它收到的梯度的形状",
    ),
    "tip.dtype": (", dtype {dtype}", "，数据类型 {dtype}"),
    "tip.values": ("value {values}", "值 {values}"),
    "tip.grad": (".grad when drawn: {grad}", "画图时的 .grad：{grad}"),
    "tip.saved": ("saved for backward: {names}", "为反向传播保存了：{names}"),
    "tip.saved_by": ("saved by {node} for its backward", "由 {node} 为反向传播保存"),
    "tip.writes": ("adds the gradient into {leaf}.grad", "把梯度累加进 {leaf}.grad"),
    "tip.freed": (
        "freed: a backward pass without retain_graph released it",
        "已释放：一次没有设置 retain_graph 的反向传播释放了它",
    ),
    "tip.module": ("made in module {path}", "由模块 {path} 创建"),
    # --- the players (player.py, replay.py) ---------------------------------------------------
    "player.export_note": (
        "A still picture of the recorded pass (in the notebook, a player replays it step by step).",
        "记录下来的这次传播的静态图（在 notebook 中，播放器可以逐步回放它）。",
    ),
    "player.replay_note": (
        "▶ Run this cell to replay the animation (a live player replaces this picture).",
        "▶ 运行这个单元格即可重放动画（届时可交互的播放器会替换这张图）。",
    ),
    "player.caption": (
        "{cls}({frames} frames{passes}; graph {summary})",
        "{cls}（{frames} 帧{passes}；计算图：{summary}）",
    ),
    "player.passes": (", {n} backward {word}", "，{n} 次反向传播"),
    # --- the player's front end (player.js): sent with its data -------------------------------
    "ui.section.created": ("Created so far", "已创建"),
    "ui.tangent_badge": ("tangent {tangent}", "切向量 {tangent}"),
    "ui.created_with_tangent": ("{node}: tangent {tangent}", "{node}：切向量 {tangent}"),
    "ui.section.created_count": (
        "Created so far ({n}, newest first)",
        "已创建（{n} 个，最新的在前）",
    ),
    "ui.section.grad": ("Gradient at this step", "这一步的梯度"),
    "ui.section.queue": ("Ready queue", "就绪队列"),
    "ui.section.deps": ("Waiting for gradients (dependency count)", "等待梯度（依赖计数）"),
    "ui.section.leaves": (".grad of leaves", "叶子的 .grad"),
    "ui.section.hooks": ("Hooks fired (this pass)", "本次反向传播触发的钩子"),
    "ui.section.freed": ("Freed saved tensors", "已释放的保存张量"),
    "ui.section.error": ("Error", "错误"),
    "ui.first": ("« first", "« 第一步"),
    "ui.first_tip": ("first step (Home)", "第一步（Home）"),
    "ui.prev_tip": ("previous step (←)", "上一步（←）"),
    "ui.play": ("▶ play", "▶ 播放"),
    "ui.play_tip": ("play (space)", "播放（空格键）"),
    "ui.pause": ("❚❚ pause", "❚❚ 暂停"),
    "ui.pause_tip": ("pause (space)", "暂停（空格键）"),
    "ui.next": ("step ▶", "下一步 ▶"),
    "ui.next_tip": ("next step (→)", "下一步（→）"),
    "ui.last": ("last »", "最后一步 »"),
    "ui.last_tip": ("last step (End)", "最后一步（End）"),
    "ui.speed": ("speed", "速度"),
    "ui.speed_tip": ("playing speed", "播放速度"),
    "ui.zoom": ("zoom", "缩放"),
    "ui.zoom.auto": ("auto", "自动"),
    "ui.zoom.fit": ("fit", "适应"),
    "ui.zoom_out_tip": ("zoom out (or ctrl + wheel)", "缩小（或 Ctrl + 滚轮）"),
    "ui.zoom_in_tip": ("zoom in (or ctrl + wheel)", "放大（或 Ctrl + 滚轮）"),
    "ui.fit": ("fit", "适应"),
    "ui.fit_tip": ("fit the whole graph in the view", "缩放到能看见整个计算图"),
    "ui.controls": ("player controls", "播放控制"),
    "ui.step": ("step", "步骤"),
    "ui.step_of": ("step {k} of {n}", "第 {k} 步，共 {n} 步"),
    "ui.minimap": (
        "the whole graph: click or drag to move the view",
        "整个计算图：点击或拖动来移动视野",
    ),
    "ui.player.forward": (
        "forward pass player: ← → step, space play or pause, Home and End first and last step",
        "前向传播播放器：← → 逐步，空格键播放或暂停，Home 和 End 跳到第一步和最后一步",
    ),
    "ui.player.backward": (
        "backward pass player: ← → step, space play or pause, Home and End first and last step",
        "反向传播播放器：← → 逐步，空格键播放或暂停，Home 和 End 跳到第一步和最后一步",
    ),
    "ui.graph": ("graph: {summary}", "计算图：{summary}"),
    "ui.legend": ("legend", "图例"),
    "ui.legend.nodes": ("Nodes", "节点"),
    "ui.legend.steps": ("Steps", "步骤"),
    "ui.legend.engine": ("Engine", "引擎"),
    "ui.colon": (":", "："),
    "ui.kind.module": ("collapsed module (click opens it)", "折叠的模块（点击展开）"),
    "ui.state.current": ("current: running now (thickest border)", "当前：正在运行（边框最粗）"),
    "ui.state.ready": ("ready: in the queue (dashed)", "就绪：在队列中（虚线）"),
    "ui.state.done": ("done this pass (dotted)", "本次已完成（点线）"),
    "ui.state.freed-now": ("freed saved tensor (faded)", "已释放的保存张量（变淡）"),
    "ui.state.active": (
        "active edge, with the gradient it carries",
        "正在传递的边，标着它携带的梯度",
    ),
    "ui.state.updated": (
        "leaf whose .grad was just written (.grad badge)",
        "刚写入 .grad 的叶子（.grad 标记）",
    ),
    "ui.state.hook": ("hook fired (⚑ badge names its kind)", "钩子已触发（⚑ 标记写明种类）"),
    "ui.state.error": ("error (dash-dot, ✗)", "错误（点划线，✗）"),
    "ui.state.created": ("created at this step (thickest border)", "这一步创建的（边框最粗）"),
    "ui.state.hidden": ("not created yet (faint)", "尚未创建（很淡）"),
    "ui.legend.shape": (
        "[2, 3] under a name: the tensor's shape ([] is a scalar); hover a node for more",
        "名字下的 [2, 3]：张量的形状（[] 表示标量）；把鼠标停在节点上可看更多",
    ),
    "ui.tip.grad_now": (".grad at this step: {grad}", "这一步的 .grad：{grad}"),
    "ui.tip.tangent": ("its output's tangent: {tangent}", "输出的切向量：{tangent}"),
    "ui.error_badge": ("✗ error", "✗ 错误"),
    "ui.hook.tensor": ("tensor hook", "张量钩子"),
    "ui.hook.retain_grad": ("retain_grad hook", "retain_grad 钩子"),
    "ui.hook.pre": ("pre-hook", "前置钩子"),
    "ui.hook.post": ("post-hook", "后置钩子"),
    "ui.hook.post_accumulate": ("post-accumulate hook", "累积后钩子"),
    "ui.hook.module_pre": ("module pre-hook", "模块前置钩子"),
    "ui.hook.module": ("module hook", "模块钩子"),
    "ui.all_values": ("all values", "全部数值"),
    "ui.not_listed": ("… {n} more not listed", "… 另有 {n} 条未列出"),
    "ui.fewer": ("show fewer", "收起"),
    "ui.fewer_tip": ("show fewer lines", "少显示几行"),
    "ui.more": ("… {n} more", "… 另有 {n} 条"),
    "ui.more_tip": ("show {n} more lines", "再显示 {n} 行"),
    "ui.nothing_yet": ("nothing yet", "还没有"),
    "ui.empty": ("(empty)", "（空）"),
    "ui.none": ("none", "无"),
    "ui.no_grad_yet": ("no .grad written yet", "还没有写入 .grad"),
}


def say(key: str, lang: str | None = None, **values: object) -> str:
    """The text `key` in `lang` (None: the default language), its fields filled in."""
    text = TEXTS[key][LANGUAGES.index(resolve(lang))]
    return text.format(**values) if values else text


def front_end(lang: str | None = None) -> dict[str, str]:
    """The player's own words in `lang`, keyed without the `ui.` prefix (unfilled templates),
    with the node kinds' names the static legend uses too (`kind.leaf`; a `ui.` entry wins)."""
    index = LANGUAGES.index(resolve(lang))
    kinds = {key: pair[index] for key, pair in TEXTS.items() if key.startswith("kind.")}
    own = {key[3:]: pair[index] for key, pair in TEXTS.items() if key.startswith("ui.")}
    return {**kinds, **own}
