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
    "step.during_node": (
        "during backward #{n}, inside {node} (not the forward)",
        "第 {n} 次反向传播中，在 {node} 内部（不是前向）",
    ),
    "step.during_backward": ("during backward #{n}", "第 {n} 次反向传播中"),
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
    "step.inner_backward_start": (
        "backward #{n} from {roots}{mode}, {inner}: {count} nodes wait for gradients",
        "第 {n} 次反向传播，从 {roots} 开始{mode}，{inner}：{count} 个节点在等待梯度",
    ),
    "step.inner_of_node": ("an inner backward pass inside {node}", "{node} 内部的一次内层反向传播"),
    "step.inner_of_pass": (
        "an inner backward pass during backward #{outer}",
        "第 {outer} 次反向传播中的一次内层反向传播",
    ),
    "step.not_drawn": (" ({k} of them not drawn)", "（其中 {k} 个图中未画出）"),
    "step.inner_backward_end": (
        "inner backward #{n} finished: backward #{outer} goes on",
        "内层的第 {n} 次反向传播结束：第 {outer} 次反向传播继续",
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
    "node.hooked": ("? (saved through hooks)", "?（经由钩子保存）"),
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
    "tip.hooked": (
        "shape unknown (saved through hooks): only the unpack hook could tell, and the picture "
        "does not run it",
        "形状未知（经由钩子保存）：只有解包钩子才知道，而画图不会运行它",
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
    # memory timeline (memory.py, memory_svg.py; `ui.memory.` entries go to player.js) --------
    "memory.saved": ("saved tensors", "保存的张量"),
    "memory.grads": ("gradients (.grad)", "梯度（.grad）"),
    "memory.buffers": ("input buffers", "输入缓冲区"),
    "memory.recomputed": ("recomputed in backward", "反向中重新计算"),
    "memory.other": ("other nodes", "其他节点"),
    "memory.head": (
        "memory timeline: {steps} steps of the backward pass",
        "内存时间线：反向传播共 {steps} 步",
    ),
    "memory.counted": (
        "counted: bytes of the tensors as saved (each storage once), .grad and retained "
        "gradients, gradients waiting in input buffers",
        "统计：保存的张量的字节数（每块存储只算一次）、.grad 和保留的梯度、"
        "在输入缓冲区里等待的梯度",
    ),
    "memory.peak": (
        "peak {total} at step {step} ({where}): {parts}",
        "峰值 {total}，在第 {step} 步（{where}）：{parts}",
    ),
    # what happened at a step (the peak's), by record kind (minigrad/core/events.py)
    "memory.at.node_created": ("{node} being created", "创建 {node}"),
    "memory.at.backward_start": ("the pass starting", "反向传播开始"),
    "memory.at.edge": ("a gradient reaching {node}", "梯度到达 {node}"),
    "memory.at.buffer_sum": (
        "a gradient summed into {node}'s input buffer",
        "梯度累加进 {node} 的输入缓冲区",
    ),
    "memory.at.ready": ("{node} becoming ready to run", "{node} 就绪"),
    "memory.at.node_start": ("{node} starting", "{node} 开始运行"),
    "memory.at.capture": (
        "autograd.grad taking a gradient at {node}",
        "autograd.grad 在 {node} 处取得梯度",
    ),
    "memory.at.hook": ("a hook on {node}", "{node} 上的钩子"),
    "memory.at.hook_alone": ("a tensor hook", "张量上的钩子"),
    "memory.at.node_run": ("{node} returning its gradients", "{node} 返回梯度"),
    "memory.at.accumulate": ("{node} writing .grad", "{node} 写入 .grad"),
    "memory.at.freed": ("{node} freeing its saved tensors", "{node} 释放保存的张量"),
    "memory.at.error": ("an error in {node}", "{node} 出错"),
    "memory.at.error_alone": ("an error", "出错"),
    "memory.at.backward_end": ("the pass ending", "反向传播结束"),
    "memory.start": ("at the start: {parts}", "开始时：{parts}"),
    "memory.end": ("at the end: {parts}", "结束时：{parts}"),
    "memory.axis_step": ("step", "步"),
    "memory.band_tip": ("{node}: {category}, up to {bytes}", "{node}：{category}，最多 {bytes}"),
    "memory.peak_label": ("peak {bytes}", "峰值 {bytes}"),
    "memory.alt": (
        "memory timeline chart, peak {peak}",
        "内存时间线图，峰值 {peak}",
    ),
    "memory.page_title": ("Memory timeline", "内存时间线"),
    "ui.memory.title": ("Memory held", "占用的内存"),
    "ui.memory.readout": (
        "step {step}: saved {saved} + grads {grads} + buffers {buffers} = {total}",
        "第 {step} 步：保存 {saved} + 梯度 {grads} + 缓冲 {buffers} = {total}",
    ),
    "ui.memory.chart": ("memory held at each step", "每一步占用的内存"),
    # pass diff (diff.py, diff_view.py, diff_player.py; `diff.ui.` entries go to diff.js) -------
    "diff.made_in_backward": ("{name} (made in backward #{k})", "{name}（反向中新建 #{k}）"),
    "diff.drawn_there": ("{title} (not drawn here)", "{title}（此图中未画出）"),
    "diff.undrawn": ("{name} (not drawn #{k})", "{name}（图中未画出 #{k}）"),
    "diff.during_backward": ("during backward #{n}", "第 {n} 次反向传播中"),
    "diff.pass": ("{label}: {steps} steps; graph {graph}", "{label}：{steps} 步；计算图：{graph}"),
    "diff.none": (
        "no differences: the same nodes, the same steps, bit-identical gradients",
        "没有差别：节点相同，步骤相同，梯度逐位相同",
    ),
    "diff.nodes_only": (
        "nodes only in {label} ({n}): {names}",
        "只在 {label} 中的节点（{n} 个）：{names}",
    ),
    "diff.made": (
        "{label} made {n} nodes while running backward (e.g. a checkpoint recomputing its forward)",
        "{label} 在反向传播中新建了 {n} 个节点（例如 checkpoint 重算前向）",
    ),
    "diff.steps_only": (
        "steps only in {a}: {n_a}; only in {b}: {n_b}",
        "只在 {a} 中的步骤：{n_a} 个；只在 {b} 中的步骤：{n_b} 个",
    ),
    "diff.moved": (
        "steps both ran at different points: {n}",
        "两遍都运行了、但先后位置不同的步骤：{n} 个",
    ),
    "diff.grads": (
        "gradients of the {matched} aligned steps: {differs} differ beyond np.allclose, "
        "{close} are allclose but not bit-identical",
        "{matched} 个对齐步骤的梯度：{differs} 个超出 np.allclose 的容差，"
        "{close} 个在容差之内但不逐位相同",
    ),
    "diff.torch_note": (
        "note: torch's engine is watched from outside, so nothing done inside a node is recorded: "
        "a torch checkpoint's recomputed forward (and a reentrant one's inner backward) never "
        "shows as steps here; minigrad reports both",
        "注意：torch 的引擎只能从外面观察，节点内部做的事都记录不到：torch checkpoint 重算的前向"
        "（以及 reentrant 版本内部的那次反向传播）不会在这里显示为步骤；minigrad 会报告这两者",
    ),
    "diff.caption": ("{label}: {summary}", "{label}：{summary}"),
    "diff.replay_note": (
        "▶ Run this cell to step through the two passes (a live view replaces this picture).",
        "▶ 运行这个单元格即可逐步对照两次传播（届时可交互的视图会替换这张图）。",
    ),
    "diff.hidden": ("… {n} identical steps", "… {n} 个相同的步骤"),
    "diff.ui.status.same": ("same", "相同"),
    "diff.ui.status.close": ("allclose, not bit-identical", "在容差之内，但不逐位相同"),
    "diff.ui.status.differs": ("gradient differs", "梯度不同"),
    "diff.ui.status.moved": ("ran at another point", "运行的先后位置不同"),
    "diff.ui.status.only": ("only in {label}", "只在 {label} 中"),
    "diff.ui.status": ("difference", "差别"),
    "diff.ui.legend.only": ("orange frame: only in this pass", "橙色粗框：只在这一遍中"),
    "diff.ui.legend.grad": (
        "purple dashed frame: a gradient there differs",
        "紫色虚线框：那里的梯度不同",
    ),
    "diff.ui.legend.current": ("blue: the current step's node", "蓝色：当前步骤的节点"),
    "diff.ui.no_step": ("(no such step)", "（没有这一步）"),
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
