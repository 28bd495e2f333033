#!/usr/bin/env python3
"""A QTP engine (docs/ENGINE.md) that plays a random legal action: docs/BOTS.md."""
import random, re, sys

def legal(tokens, variant):
    spooky, classical, last = {}, {}, None  # move -> its squares; square -> move
    def land(move, square):  # a move ends in a square; the moves sharing it end in their other one
        classical[square] = move
        del spooky[move]
        for other, squares in list(spooky.items()):
            if other in spooky and square in squares:
                land(other, squares[1] if squares[0] == square else squares[0])
    for token in tokens:
        if m := re.fullmatch(r"[XO](\d)\+\((\d),(\d)\)", token):
            last = (int(m[1]), int(m[2]), int(m[3]))
            spooky[last[0]] = last[1:]
            if last[1] == last[2]: land(last[0], last[1])
        elif m := re.fullmatch(r"[XO]\d![XO](\d)\((\d)\)", token):
            land(int(m[1]), int(m[2]))
    moves = sum("+" in token for token in tokens)
    mover, chooser = "XO"[(moves - 1) % 2], "XO"[moves % 2]
    parent = list(range(10))  # does the last move close a cycle of spooky marks?
    def root(square):
        return square if parent[square] == square else root(parent[square])
    for move, (a, b) in spooky.items():
        if last and move != last[0]: parent[root(a)] = root(b)
    if last and last[0] in spooky and root(last[1]) == root(last[2]):
        return [] if variant == "measurement" else [f"{chooser}{moves + 1}!{mover}{last[0]}({s})" for s in last[1:]]
    free = [s for s in range(1, 10) if s not in classical]
    pairs = [(a, a) for a in free] if len(free) == 1 else [(a, b) for a in free for b in free if a < b]
    return [f"{chooser}{moves + 1}+({a},{b})" for a, b in pairs]

tokens, variant = [], "player_choice"
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["qtp"]: print("id name random_engine.py\nqtpok", flush=True)
    elif words[:1] == ["isready"]: print("readyok", flush=True)
    # position variant V [scoring S] [actions A...]: a random player needs no scoring.
    elif words[:1] == ["position"]: variant, tokens = words[2], words[words.index("actions") + 1:] if "actions" in words else []
    elif words[:1] == ["go"]: print("bestaction", random.choice(legal(tokens, variant) or ["none"]), flush=True)
    elif words[:1] == ["quit"]: break
