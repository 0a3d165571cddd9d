"""A small raster chart writer for cudrop-bench, Python standard library only (zlib + struct).

Used when matplotlib is not importable (the GPU machine usually has neither numpy nor
matplotlib). It draws a grid of line charts (one panel per routine and precision), axes with
ticks and labels in a built-in 5x7 bitmap font (upper case), and one legend of coloured boxes.

    from pngplot import chart
    chart(path, title, panels, legend)
      panels: [{"title": str, "xlabel": str, "ylabel": str,
                "series": [{"name": str, "color": (r, g, b), "width": int,
                            "marker": "square" or "cross", "points": [(x, y), ...]}]}]
      legend: [(name, (r, g, b)), ...] or [(name, (r, g, b), marker), ...]
    x is drawn on a log2 axis; y on a linear axis, or log10 when the values span more than 50x.
    Both axes end at or beyond the extreme values (axes(panel) gives the ranges), so every point
    lies inside its panel's frame.
"""
import math
import struct
import zlib

# 5x7 glyphs, rows top to bottom. Lower case is drawn as upper case.
_GLYPHS = {
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 10001 01010 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    ",": "00000 00000 00000 00000 01100 00100 01000",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    "_": "00000 00000 00000 00000 00000 00000 11111",
    "=": "00000 00000 11111 00000 11111 00000 00000",
    "(": "00010 00100 01000 01000 01000 00100 00010",
    ")": "01000 00100 00010 00010 00010 00100 01000",
    "[": "01110 01000 01000 01000 01000 01000 01110",
    "]": "01110 00010 00010 00010 00010 00010 01110",
    "/": "00000 00001 00010 00100 01000 10000 00000",
    ":": "00000 01100 01100 00000 01100 01100 00000",
    "+": "00000 00100 00100 11111 00100 00100 00000",
    "*": "00000 00100 10101 01110 10101 00100 00000",
    "%": "11000 11001 00010 00100 01000 10011 00011",
    ">": "01000 00100 00010 00001 00010 00100 01000",
    "<": "00010 00100 01000 10000 01000 00100 00010",
    "?": "01110 10001 00001 00010 00100 00000 00100",
}
_FONT = {c: [row for row in g.split()] for c, g in _GLYPHS.items()}

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GRID = (225, 225, 225)
DARK = (90, 90, 90)



def _lit_pixels(s):
    """(position in s, row, column) of every lit pixel of the glyphs that spell s."""
    for i, ch in enumerate(str(s)):
        glyph = _FONT.get(ch.upper(), _FONT["?"])
        for r, row in enumerate(glyph):
            for c, bit in enumerate(row):
                if bit == "1":
                    yield i, r, c

class Canvas:
    def __init__(self, width, height, background=WHITE):
        self.w, self.h = int(width), int(height)
        self.px = bytearray(bytes(background) * (self.w * self.h))

    def set(self, x, y, color):
        x, y = int(x), int(y)
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        x0, x1 = sorted((max(0, int(x0)), min(self.w - 1, int(x1))))
        y0, y1 = sorted((max(0, int(y0)), min(self.h - 1, int(y1))))
        row = bytes(color) * (x1 - x0 + 1)
        for y in range(y0, y1 + 1):
            i = 3 * (y * self.w + x0)
            self.px[i:i + len(row)] = row

    def frame(self, x0, y0, x1, y1, color):
        self.rect(x0, y0, x1, y0, color)
        self.rect(x0, y1, x1, y1, color)
        self.rect(x0, y0, x0, y1, color)
        self.rect(x1, y0, x1, y1, color)

    def line(self, x0, y0, x1, y1, color, width=1):
        """Bresenham, thickened by a square brush."""
        x0, y0, x1, y1 = int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        lo, hi = -(width // 2), (width - 1) // 2
        while True:
            if width <= 1:
                self.set(x0, y0, color)
            else:
                self.rect(x0 + lo, y0 + lo, x0 + hi, y0 + hi, color)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, s, color=BLACK, scale=2):
        """Top-left anchored; returns the width drawn."""
        for i, r, c in _lit_pixels(s):
            px, py = int(x) + (6 * i + c) * scale, y + r * scale
            self.rect(px, py, px + scale - 1, py + scale - 1, color)
        return 6 * scale * len(str(s))

    def text_vertical(self, x, y, s, color=BLACK, scale=2):
        """Reads bottom to top, (x, y) is the bottom-left of the first glyph."""
        for i, r, c in _lit_pixels(s):
            # rotate 90 degrees counter-clockwise: column c -> y going up, row r -> x
            px, py = x + r * scale, int(y) - 6 * scale * i - (c + 1) * scale
            self.rect(px, py, px + scale - 1, py + scale - 1, color)

    def png(self):
        raw = bytearray()
        stride = 3 * self.w
        for y in range(self.h):
            raw.append(0)
            raw += self.px[y * stride:(y + 1) * stride]

        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

        ihdr = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) +
                chunk(b"IEND", b""))

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.png())


def text_width(s, scale=2):
    return 6 * scale * len(str(s))


def _size_label(v):
    v = int(round(v))
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return f"{v >> 20}M"
    if v >= 1024 and v % 1024 == 0:
        return f"{v >> 10}K"
    return str(v)


def _num_label(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 1:
        return f"{v:g}"
    return f"{v:.3g}".replace("0.", ".", 1) if a < 0.01 else f"{v:g}"


def _nice_ticks(lo, hi, count=5):
    """Round ticks from at or below lo to at or above hi: the first and last are the axis ends, so
    every value in [lo, hi] lies inside the frame."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step + 1e-9) * step
    ticks, i = [], 0
    while not ticks or ticks[-1] < hi - step * 1e-9:
        ticks.append(round(start + i * step, 12))
        i += 1
    return ticks


def axes(panel):
    """The axis ranges _panel draws: {"x": (lo, hi) in log2 units, "y": (lo, hi) in data units,
    "ylog": bool, "yticks": [...]}, or None for a panel without points."""
    pts = [(x, y) for s in panel["series"] for x, y in s["points"] if x and x > 0 and y is not None]
    if not pts:
        return None
    xs = [math.log2(x) for x, _ in pts]
    xlo, xhi = math.floor(min(xs)), math.ceil(max(xs))
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    ys = [y for _, y in pts]
    pos = [y for y in ys if y > 0]
    ylog = bool(pos) and max(pos) / min(pos) > 50
    if ylog:
        elo, ehi = math.floor(math.log10(min(pos))), math.ceil(math.log10(max(pos)))
        if ehi == elo:
            ehi += 1
        yticks = [10.0 ** e for e in range(elo, ehi + 1)]
    else:
        top = max(ys) * 1.05 if max(ys) > 0 else 1.0
        yticks = _nice_ticks(min(0.0, min(ys)), top)
    return {"x": (xlo, xhi), "y": (yticks[0], yticks[-1]), "ylog": ylog, "yticks": yticks}


def _panel(cv, x0, y0, w, h, panel):
    left, right, top, bottom = 86, 30, 34, 50
    px0, px1, py0, py1 = x0 + left, x0 + w - right, y0 + top, y0 + h - bottom
    cv.text(x0 + left, y0 + 8, panel.get("title", ""), BLACK, 2)
    ax = axes(panel)
    if ax is None:
        cv.frame(px0, py0, px1, py1, DARK)
        cv.text(px0 + 20, (py0 + py1) // 2, "NO DATA", DARK, 2)
        return
    xlo, xhi = ax["x"]
    ylog, yticks = ax["ylog"], ax["yticks"]
    if ylog:
        ylo, yhi = math.log10(ax["y"][0]), math.log10(ax["y"][1])
        fy = lambda y: py1 - (math.log10(max(y, 10.0 ** ylo)) - ylo) / (yhi - ylo) * (py1 - py0)
    else:
        ylo, yhi = ax["y"]
        fy = lambda y: py1 - (y - ylo) / (yhi - ylo) * (py1 - py0)
    fx = lambda x: px0 + (math.log2(x) - xlo) / (xhi - xlo) * (px1 - px0)

    # grid and ticks
    octaves = xhi - xlo
    every = 1 if octaves <= 10 else 2
    for e in range(xlo, xhi + 1):
        X = int(fx(2.0 ** e))
        cv.rect(X, py0, X, py1, GRID)
        cv.rect(X, py1, X, py1 + 5, BLACK)
        if (e - xlo) % every == 0:
            lab = _size_label(2 ** e)
            cv.text(X - text_width(lab, 1), py1 + 9, lab, BLACK, 2)
    for t in yticks:
        Y = int(fy(t))
        cv.rect(px0, Y, px1, Y, GRID)
        cv.rect(px0 - 5, Y, px0, Y, BLACK)
        lab = _num_label(t)
        cv.text(px0 - 9 - text_width(lab), Y - 7, lab, BLACK, 2)
    cv.frame(px0, py0, px1, py1, BLACK)
    xl = panel.get("xlabel", "")
    cv.text((px0 + px1) // 2 - text_width(xl) // 2, py1 + 30, xl, DARK, 2)
    yl = panel.get("ylabel", "") + (" (LOG)" if ylog else "")
    cv.text_vertical(x0 + 4, (py0 + py1) // 2 + text_width(yl) // 2, yl, DARK, 2)

    for s in panel["series"]:
        p = sorted((x, y) for x, y in s["points"] if x and x > 0 and y is not None and (y > 0 or not ylog))
        width = s.get("width", 2)
        for (xa, ya), (xb, yb) in zip(p, p[1:]):
            cv.line(fx(xa), fy(ya), fx(xb), fy(yb), s["color"], width)
        for x, y in p:
            _marker(cv, int(fx(x)), int(fy(y)), s["color"], s.get("marker", "square"))


def _marker(cv, X, Y, color, kind):
    if kind == "cross":  # an X, told apart from the filled squares without colour
        cv.line(X - 4, Y - 4, X + 4, Y + 4, color, 2)
        cv.line(X - 4, Y + 4, X + 4, Y - 4, color, 2)
    else:
        cv.rect(X - 3, Y - 3, X + 3, Y + 3, color)


def chart(path, title, panels, legend, columns=2, panel_w=760, panel_h=430):
    columns = max(1, min(columns, len(panels) or 1))
    rows = max(1, (len(panels) + columns - 1) // columns)
    # legend rows: boxes laid out left to right, wrapped
    width = columns * panel_w
    items, lx, lrows = [], 0, 1
    for entry in legend:
        name, color = entry[0], entry[1]
        marker = entry[2] if len(entry) > 2 else None
        iw = 30 + text_width(name) + 24
        if lx + iw > width - 40 and lx > 0:
            lrows += 1
            lx = 0
        items.append((lrows, lx, name, color, marker))
        lx += iw
    head, leg_h = 44, 20 + 26 * lrows
    cv = Canvas(width, head + rows * panel_h + leg_h)
    cv.text(20, 12, title, BLACK, 3)
    for i, panel in enumerate(panels):
        r, c = divmod(i, columns)
        _panel(cv, c * panel_w, head + r * panel_h, panel_w, panel_h, panel)
    ly = head + rows * panel_h + 10
    for row, x, name, color, marker in items:
        y = ly + (row - 1) * 26
        if marker == "cross":
            _marker(cv, 20 + x + 10, y + 7, color, marker)
        else:
            cv.rect(20 + x, y, 20 + x + 20, y + 14, color)
        cv.text(20 + x + 28, y, name, BLACK, 2)
    cv.save(path)
    return cv.w, cv.h
