"""Inline SVG charts, generated in Python (no script, no network): every text in them is escaped.

Each function returns ``Markup`` ready to drop into a template. Charts scale with their container
(``viewBox`` and ``width: 100%``) and carry a ``<title>`` for screen readers and a tooltip per mark.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from markupsafe import Markup, escape

_FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"'
ACCENT = "#1f5fa8"
MUTED = "#b8c2cc"
GRID = "#e3e7eb"
INK = "#222"


def nice_ticks(lo: float, hi: float, count: int = 6, cover: bool = False) -> list[float]:
    """Round tick values within [lo, hi] (steps of 1, 2 or 5 times a power of ten); with ``cover`` the
    first and last tick lie at or beyond lo and hi, so the ticks span all of it."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = (math.floor(lo / step + 1e-9) if cover else math.ceil(lo / step - 1e-9)) * step
    last = (math.ceil(hi / step - 1e-9) if cover else math.floor(hi / step + 1e-9)) * step
    ticks = []
    v = first
    while v <= last + 1e-9 * step:
        ticks.append(round(v, 10))
        v += step
    return ticks


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _elo(v: float) -> str:
    text = f"{v:+.0f}"
    return "0" if text in ("+0", "-0") else text.replace("-", "\u2212")


def _short(name: str, limit: int = 18) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def _svg(width: int, height: int, title: str, body: list[str], cls: str) -> Markup:
    head = (f'<svg class="chart {cls}" viewBox="0 0 {width} {height}" role="img" {_FONT} '
            f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>')
    return Markup(head + "".join(body) + "</svg>")


def ratings_chart(
    rows: Sequence[tuple[str, float, float | None, float | None]], anchor: str | None = None
) -> Markup | None:
    """One line per bot, best first: a dot at its Elo and a bar over its 95% interval."""
    if not rows:
        return None
    width, left, right, top, row_h = 640, 130, 20, 12, 26
    height = top + row_h * len(rows) + 46
    lows = [lo if lo is not None else elo for _, elo, lo, _ in rows]
    highs = [hi if hi is not None else elo for _, elo, _, hi in rows]
    lo, hi = min(lows + [0.0]), max(highs + [0.0])
    pad = max(10.0, (hi - lo) * 0.05)
    ticks = nice_ticks(lo - pad, hi + pad)
    lo, hi = min(ticks[0], lo - pad), max(ticks[-1], hi + pad)

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    body = []
    bottom = top + row_h * len(rows)
    for n in range(0, len(rows), 2):  # zebra rows first, so the grid shows through
        body.append(f'<rect x="0" y="{top + row_h * n}" width="{width}" height="{row_h}" fill="#f6f8fa"/>')
    for t in ticks:
        body.append(f'<line x1="{x(t):.1f}" y1="{top - 4}" x2="{x(t):.1f}" y2="{bottom}" stroke="{GRID}"/>'
                    f'<text x="{x(t):.1f}" y="{bottom + 18}" font-size="12" text-anchor="middle" '
                    f'fill="#555">{escape(_elo(t))}</text>')
    body.append(f'<line x1="{x(0):.1f}" y1="{top - 4}" x2="{x(0):.1f}" y2="{bottom}" stroke="#888" '
                f'stroke-dasharray="3 3"/>')
    for n, (name, elo, rlo, rhi) in enumerate(rows):
        cy = top + row_h * n + row_h / 2
        tip = f"{name}: {_elo(elo)} Elo" + (f", 95% interval {_elo(rlo)} to {_elo(rhi)}"
                                            if rlo is not None and rhi is not None else "")
        body.append(f'<g><title>{escape(tip)}</title>')
        body.append(f'<text x="{left - 10}" y="{cy + 4:.1f}" font-size="13" text-anchor="end" fill="{INK}">'
                    f'{escape(_short(name, 16))}</text>')
        if rlo is not None and rhi is not None:
            body.append(f'<line x1="{x(rlo):.1f}" y1="{cy:.1f}" x2="{x(rhi):.1f}" y2="{cy:.1f}" '
                        f'stroke="{ACCENT}" stroke-width="4" stroke-linecap="round" opacity="0.35"/>')
        body.append(f'<circle cx="{x(elo):.1f}" cy="{cy:.1f}" r="5" fill="{ACCENT}"/></g>')
    body.append(f'<text x="{width - right}" y="{height - 2}" font-size="11" text-anchor="end" fill="#666">'
                f'Elo{escape(f" (relative to {anchor})" if anchor else "")}; bars: 95% interval</text>')
    return _svg(width, height, "Ratings with 95% intervals", body, "ratings")


def line_chart(
    xs: Sequence[int], series: Mapping[str, Sequence[float | None]], highlight: str | None = None
) -> Markup | None:
    """Each bot's Elo after every refit; ``highlight`` drawn in colour over the others in grey."""
    if not xs:
        return None
    width, height, left, right, top, bottom = 720, 280, 56, 20, 14, 40
    values = [v for ys in series.values() for v in ys if v is not None]
    if not values:
        return None
    ticks = nice_ticks(min(values + [0.0]), max(values + [0.0]), 5, cover=True)
    lo, hi = ticks[0], ticks[-1]
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    x_lo, x_hi = 0, max(xs[-1], 1)

    def px(v: float) -> float:
        return left + (v - x_lo) / (x_hi - x_lo) * (width - left - right)

    def py(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    body = _elo_axes(ticks, py, px, x_lo, x_hi, (width, height, left, right, bottom),
                     "matches played in the tournament")

    def path(ys: Sequence[float | None]) -> str:
        parts, pen = [], "M"
        for xv, yv in zip(xs, ys, strict=True):
            if yv is None:
                pen = "M"
                continue
            parts.append(f"{pen}{px(xv):.1f},{py(yv):.1f}")
            pen = "L"
        return " ".join(parts)

    for name, ys in series.items():
        if name == highlight:
            continue
        body.append(f'<path d="{path(ys)}" fill="none" stroke="{MUTED}" stroke-width="1.2">'
                    f'<title>{escape(name)}</title></path>')
    if highlight is not None and highlight in series:
        ys = series[highlight]
        body.append(f'<path d="{path(ys)}" fill="none" stroke="{ACCENT}" stroke-width="2.5"/>')
        for xv, yv in zip(xs, ys, strict=True):
            if yv is not None:
                tip = f"{highlight} after {xv} matches: {_elo(yv)}"
                body.append(f'<circle cx="{px(xv):.1f}" cy="{py(yv):.1f}" r="3" fill="{ACCENT}">'
                            f'<title>{escape(tip)}</title></circle>')
    title = f"Rating of {highlight} over the tournament" if highlight else "Ratings over the tournament"
    return _svg(width, height, title, body, "trajectory")


def _elo_axes(ticks: Sequence[float], py: Callable[[float], float], px: Callable[[float], float], x_lo: float,
              x_hi: float, box: tuple[int, int, int, int, int], x_label: str) -> list[str]:
    """An Elo chart's grid and labels: a line per y tick, x tick labels, the x axis's name."""
    width, height, left, right, bottom = box
    body = []
    for t in ticks:
        body.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{width - right}" y2="{py(t):.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 6}" y="{py(t) + 4:.1f}" font-size="12" text-anchor="end" fill="#555">'
                    f'{escape(_elo(t))}</text>')
    for t in nice_ticks(x_lo, x_hi, 6):
        if x_lo <= t <= x_hi:
            body.append(f'<text x="{px(t):.1f}" y="{height - bottom + 18}" font-size="12" text-anchor="middle" '
                        f'fill="#555">{escape(_num(t))}</text>')
    body.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 4}" font-size="12" '
                f'text-anchor="middle" fill="#555">{escape(x_label)}</text>')
    return body


def histogram(values: Sequence[float], bins: int = 24) -> Markup | None:
    """Think times in ms; bins on a log scale when they span more than two orders of magnitude."""
    vals = [v for v in values if math.isfinite(v) and v >= 0]
    if not vals:
        return None
    width, height, left, right, top, bottom = 720, 240, 48, 20, 12, 40
    positive = [v for v in vals if v > 0]
    vmin, vmax = (min(positive), max(positive)) if positive else (0.0, 1.0)
    log = bool(positive) and vmax / vmin > 100
    if log:
        a, b = math.log10(vmin), math.log10(vmax)
        if b - a < 1e-9:
            b = a + 1
        edges = [10 ** (a + (b - a) * i / bins) for i in range(bins + 1)]
    else:
        a, b = 0.0, max(vals) or 1.0
        edges = [a + (b - a) * i / bins for i in range(bins + 1)]
    counts = [0] * bins
    for v in vals:
        if log:
            pos = (math.log10(v) - a) / (b - a) if v > 0 else 0.0
        else:
            pos = (v - a) / (b - a)
        counts[min(bins - 1, max(0, int(pos * bins)))] += 1
    top_count = max(counts)
    yticks = nice_ticks(0, max(top_count, 1), 4, cover=True)
    y_hi = yticks[-1]
    plot_w = width - left - right
    plot_h = height - top - bottom

    def py(c: float) -> float:
        return top + plot_h - c / y_hi * plot_h

    body = []
    for t in yticks:
        if not float(t).is_integer():
            continue  # counts are whole numbers
        body.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{width - right}" y2="{py(t):.1f}" stroke="{GRID}"/>'
                    f'<text x="{left - 6}" y="{py(t) + 4:.1f}" font-size="12" text-anchor="end" fill="#555">'
                    f'{int(t)}</text>')
    bw = plot_w / bins
    for i, c in enumerate(counts):
        tip = f"{_ms(edges[i])}\u2013{_ms(edges[i + 1])}: {c} decisions"
        body.append(f'<rect x="{left + i * bw + 1:.1f}" y="{py(c):.1f}" width="{bw - 2:.1f}" '
                    f'height="{py(0) - py(c):.1f}" fill="{ACCENT}" opacity="0.8"><title>{escape(tip)}</title></rect>')
    if log:
        for d in range(math.floor(a), math.ceil(b) + 1):
            if a - 1e-9 <= d <= b + 1e-9:
                xv = left + (d - a) / (b - a) * plot_w
                body.append(f'<text x="{xv:.1f}" y="{height - bottom + 18}" font-size="12" text-anchor="middle" '
                            f'fill="#555">{escape(_ms(10.0 ** d))}</text>'
                            f'<line x1="{xv:.1f}" y1="{py(0):.1f}" x2="{xv:.1f}" y2="{py(0) + 5:.1f}" stroke="#555"/>')
    else:
        for t in nice_ticks(a, b, 6):
            if a <= t <= b:
                xv = left + (t - a) / (b - a) * plot_w
                body.append(f'<text x="{xv:.1f}" y="{height - bottom + 18}" font-size="12" text-anchor="middle" '
                            f'fill="#555">{escape(_ms(t))}</text>')
    body.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 4}" font-size="12" '
                f'text-anchor="middle" fill="#555">think time per decision{" (log scale)" if log else ""}</text>')
    return _svg(width, height, "Think time per decision", body, "histogram")


def _ms(v: float) -> str:
    if v >= 1000:
        return f"{v / 1000:.3g} s"
    return f"{v:.3g} ms"


def band_chart(xs: Sequence[int], ys: Sequence[float], lows: Sequence[float], highs: Sequence[float],
               title: str, x_label: str) -> Markup | None:
    """One line with its 95% interval as a shaded band: a ladder bot's rating after each of its pairs."""
    if not xs:
        return None
    width, height, left, right, top, bottom = 720, 260, 56, 20, 14, 40
    ticks = nice_ticks(min(lows), max(highs), 5, cover=True)
    lo, hi = ticks[0], ticks[-1]
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    x_lo, x_hi = min(xs), max(max(xs), min(xs) + 1)

    def px(v: float) -> float:
        return left + (v - x_lo) / (x_hi - x_lo) * (width - left - right)

    def py(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    body = _elo_axes(ticks, py, px, x_lo, x_hi, (width, height, left, right, bottom), x_label)
    band = [f"{px(x):.1f},{py(h):.1f}" for x, h in zip(xs, highs, strict=True)]
    band += [f"{px(x):.1f},{py(low):.1f}" for x, low in reversed(list(zip(xs, lows, strict=True)))]
    body.append(f'<polygon class="interval" points="{" ".join(band)}" fill="{ACCENT}" opacity="0.15"/>')
    line = " ".join(f"{'M' if i == 0 else 'L'}{px(x):.1f},{py(y):.1f}"
                    for i, (x, y) in enumerate(zip(xs, ys, strict=True)))
    body.append(f'<path class="rating" d="{line}" fill="none" stroke="{ACCENT}" stroke-width="2.5"/>')
    for x, y, low, h in zip(xs, ys, lows, highs, strict=True):
        tip = f"{_num(x)}: {_elo(y)} ({_elo(low)} to {_elo(h)})"
        body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{ACCENT}"><title>{escape(tip)}</title>'
                    '</circle>')
    return _svg(width, height, title, body, "history")
