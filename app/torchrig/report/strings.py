"""Every fixed string of the PDF build sheet, in English and Simplified Chinese.

The sheet's language is chosen per export (a Chinese quote from an English UI is normal), so
the renderer never uses the UI translation system: it asks :func:`text` for a key and a
language. Keys are grouped by the part of the sheet that shows them.
"""

from __future__ import annotations

from torchrig.i18n import Msg, plural

STRINGS: dict[str, Msg] = {
    # header
    "title.sheet": Msg("Build sheet", "配置单"),
    "title.quote": Msg("Quote", "报价单"),
    "title.plan": Msg("Plan", "配置规划"),
    "draft.stamp": Msg("DRAFT", "草稿"),
    "draft.lines": Msg("DRAFT - no price yet for: {lines}", "草稿：以下部件尚无价格：{lines}"),
    "draft.list_sep": Msg("; ", "；"),
    "header.number": Msg("No.", "编号"),
    "header.date": Msg("Date", "日期"),
    "header.valid": Msg("Valid for", "有效期"),
    "header.valid_days": Msg("{days} days (until {until})", "{days} 天（至 {until}）"),
    "header.customer": Msg("Customer", "客户"),
    "header.project": Msg("Project", "项目"),
    "header.tier": Msg("Target tier", "目标档位"),
    "header.workload": Msg("Workload", "工作负载"),
    "header.tier_value": Msg("{name} ({ref})", "{name}（{ref}）"),
    # section titles
    "section.bom": Msg("Bill of materials", "物料清单"),
    "section.comparison": Msg("Comparison with the target tier", "与目标档位对比"),
    "section.requirements": Msg("Workload requirements", "工作负载需求"),
    "section.bench": Msg("Benchmark results", "基准测试结果"),
    "section.verify": Msg("Measured on this machine vs planned", "本机实测与规划对比"),
    "section.claims": Msg("Seed claims, measured", "种子文档结论实测"),
    "section.scaling": Msg("Multi-GPU scaling", "多 GPU 扩展"),
    "section.findings": Msg("Findings", "检查结果"),
    "section.recommendation": Msg("Recommendation", "推荐"),
    "plan.tier": Msg("Tier", "档位"),
    "plan.gpu": Msg("Catalog GPU ({basis}): {gpu} (needs {vram} per GPU)",
                    "目录 GPU（{basis}）：{gpu}（每卡需 {vram}）"),
    "plan.no_gpu": Msg("No catalog GPU runs this workload.", "目录中没有能运行此工作负载的 GPU。"),
    "plan.subject": Msg("Findings are for {subject}.", "检查结果针对{subject}。"),
    # bill of materials
    "bom.category": Msg("Category", "类别"),
    "bom.part": Msg("Part", "部件"),
    "bom.spec": Msg("Key spec", "关键规格"),
    "bom.qty": Msg("Qty", "数量"),
    "bom.unit_price": Msg("Unit price", "单价"),
    "bom.line_total": Msg("Line total", "小计"),
    "bom.price_source": Msg("Price source", "价格来源"),
    "bom.no_price": Msg("no price", "无价格"),
    "bom.clipped": Msg("… ({n} more characters in the build file)",
                       "…（配置文件中还有 {n} 个字符）"),
    "bom.empty": Msg("The build has no parts.", "该配置没有部件。"),
    "bom.per_node": Msg("{qty} per node × {nodes} nodes", "{qty}/节点 × {nodes} 节点"),
    "bom.converted": Msg("converted from {amount}", "由 {amount} 换算"),
    "bom.rate_needed": Msg("priced in {amount}: exchange rate needed",
                           "原价 {amount}：需要汇率"),
    "bom.price_needed": Msg("price needed", "需要价格"),
    "xlsx.nodes": Msg("Nodes", "节点数"),
    "xlsx.qty": Msg("Qty per node", "每节点数量"),
    "xlsx.tab": Msg("Quote", "报价"),
    "bom.reliability": Msg("price reliability: {level}", "价格可靠性：{level}"),
    # shared text (report/share_text.py)
    "share.note": Msg("Note", "说明"),
    "share.rate_needed": Msg("exchange rate needed", "需要汇率"),
    "share.estimate": Msg("estimated price", "估算价格"),
    "bom.derived_note": Msg(
        "* figure derived from a sourced figure (see the catalog entry)",
        "* 由有来源的数据推算（见目录条目）",
    ),
    # totals
    "totals.subtotal": Msg("Subtotal", "小计"),
    "totals.discount": Msg("Discount", "折扣"),
    "totals.tax": Msg("Tax", "税费"),
    "totals.tax_rate": Msg("Tax ({rate}%)", "税费（{rate}%）"),
    "totals.total": Msg("Total", "总计"),
    "totals.exchange": Msg("Exchange rate", "汇率"),
    "totals.exchange_origin": Msg("; source: {origin}", "；来源：{origin}"),
    "totals.exchange_value": Msg("1 {src} = {rate} {dst} (as of {date})",
                                 "1 {src} = {rate} {dst}（{date}）"),
    "totals.incomplete": Msg(
        "Total is incomplete: {n} lines have no price.",
        "合计不完整：{n} 行没有价格。",
    ),
    "totals.incomplete_one": Msg(
        "Total is incomplete: {n} line has no price.",
        "合计不完整：{n} 行没有价格。",
    ),
    "totals.unknown": Msg("unknown", "未知"),
    # comparison
    "cmp.dimension": Msg("Dimension", "项目"),
    "cmp.target": Msg("Target", "目标"),
    "cmp.build": Msg("This build", "本配置"),
    "cmp.machine": Msg("This machine", "本机"),
    # requirements
    "req.group.vram": Msg("VRAM per GPU", "单卡显存"),
    "req.group.ram": Msg("System RAM", "系统内存"),
    "req.group.storage": Msg("Storage", "存储"),
    "req.group.cpu": Msg("CPU", "处理器"),
    "req.capacity": Msg("available: {value}", "可用：{value}"),
    "req.total": Msg("needed: {value}", "需要：{value}"),
    "req.unknown": Msg("not estimated: {items}", "未估算：{items}"),
    "req.read_rate": Msg("sustained read rate needed: {rate}", "所需持续读取速率：{rate}"),
    "req.assumption": Msg("Assumption: {text}", "假设：{text}"),
    "workload.summary": Msg("{model}, {precision}, batch {batch} per GPU, {gpus}",
                            "{model}，{precision}，每 GPU 批量 {batch}，{gpus}"),
    "workload.gpu": Msg("{n} GPU", "共 {n} 块 GPU"),
    "workload.gpus": Msg("{n} GPUs", "共 {n} 块 GPU"),
    "scaling.model": Msg("{link} (model)", "{link}（模型）"),
    # bench
    "bench.name": Msg("Benchmark", "测试项"),
    "bench.measured": Msg("Measured", "实测"),
    "bench.reference": Msg("Reference", "参考值"),
    "bench.percent": Msg("% of ref.", "占参考值"),
    "bench.not_measured": Msg("not measured", "未测得"),
    "claim.claim": Msg("Claim", "结论"),
    "claim.seed": Msg("Seed says", "种子文档"),
    "claim.measured": Msg("Measured here", "本机实测"),
    "claim.verdict": Msg("Verdict", "判定"),
    "verdict.holds": Msg("holds", "成立"),
    "verdict.below": Msg("below the claim", "低于所述"),
    "verdict.above": Msg("above the claim", "高于所述"),
    "verdict.unknown": Msg("not measured", "未测得"),
    # charts
    "chart.bench.title": Msg("Measured vs reference", "实测值与参考值对比"),
    "chart.bench.axis": Msg("% of reference", "占参考值百分比"),
    "chart.throughput.title": Msg("Matmul throughput: measured, spec peak, the tiers' GPUs",
                                  "矩阵乘吞吐量：实测、规格峰值与各档位 GPU"),
    "chart.throughput.axis": Msg("TFLOP/s (dense; spec figures from the catalog)",
                                 "TFLOP/s（稠密；规格值来自部件目录）"),
    "chart.scaling.title": Msg("Scaling efficiency vs GPU count", "扩展效率与 GPU 数量"),
    "chart.scaling.x": Msg("GPUs", "GPU 数量"),
    "chart.scaling.y": Msg("efficiency (%)", "效率（%）"),
    "chart.scaling.target": Msg("seed 2.3 target (80%)", "种子文档 2.3 目标（80%）"),
    "chart.capacity": Msg("available", "可用"),
    # findings
    "findings.none": Msg("No findings.", "没有检查结果。"),
    "findings.fix": Msg("Fix", "建议"),
    "findings.source": Msg("Source", "来源"),
    # attachment
    "attach.note": Msg(
        "The build file is attached to this PDF as {name}; TorchRig can open this PDF as a "
        "build.",
        "本 PDF 附带配置文件 {name}，TorchRig 可直接将此 PDF 作为配置打开。",
    ),
    # footer
    "footer.page": Msg("Page {page} of {pages}", "第 {page} 页，共 {pages} 页"),
    "footer.generated": Msg("Generated by TorchRig {version}", "由 TorchRig {version} 生成"),
    "unknown": Msg("unknown", "未知"),
    "unit.cores": Msg("{n} cores", "{n} 核"),
    "unit.cores_axis": Msg("cores", "核"),
    "seed_ref": Msg("seed {section}", "种子文档 {section}"),
    "notes": Msg("Notes", "备注"),
    "colon": Msg(": ", "："),
}


def incomplete_note(missing: int, lang: str) -> str:
    """"Total is incomplete: 1 line has / 5 lines have no price." """
    return plural(missing, STRINGS["totals.incomplete_one"], STRINGS["totals.incomplete"], lang)


def text(key: str, lang: str, **values: object) -> str:
    """The fixed string ``key`` in ``lang``, with ``{name}`` fields filled from ``values``.

    An unknown key is a programming error, so it raises KeyError rather than printing a key.
    """
    template = STRINGS[key].get(lang)
    return template.format(**values) if values else template
