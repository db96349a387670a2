"""MIGraphX custom syntax -> generic-form MLIR text that the bindings parse.

The bindings cannot register the `migraphx` dialect, so its custom syntax cannot be
parsed by MLIR. We parse it ourselves and print every op in generic form:

  %0 = migraphx.dot %a, %b {perf_config = "..."} : <..>, <..> -> <..>
    becomes
  %0 = "migraphx.dot"(%a, %b) {perf_config = "..."}
       : (!migraphx.shaped<..>, !migraphx.shaped<..>) -> !migraphx.shaped<..> loc("f.mlir":7:5)

`!migraphx.shaped<...>` stays an opaque type of the unregistered dialect. Each op,
argument and function carries the `loc(file:line:col)` of its source text, so later
diagnostics point into the user's file. Errors an MLIR parse would report against our
generated text (undefined values, mismatched use types) are reported here instead,
against the source.
"""

from __future__ import annotations

import functools
import json
import re

import lark

from accel.diagnostics import AccelError
from accel.migraphx.grammar import GRAMMAR, TERMINAL_WORDS
from accel.migraphx.shaped import ShapedType


@functools.cache
def _parser() -> lark.Lark:
    """Built on first use: building the LALR tables takes ~150 ms, which every process
    that imports the passes (and never reads MIGraphX) would otherwise pay."""
    return lark.Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True)


# An op name outside quotes and not a type (`!migraphx.`) marks the custom syntax; our
# own generic output quotes every op name, so it is never re-translated.
_CUSTOM_OP = re.compile(r'(?<![\w"!.])migraphx\.[a-z_]\w*')
_LINE_COMMENT = re.compile(r"//[^\n]*")


def looks_like_migraphx(text: str) -> bool:
    """True if `text` uses the MIGraphX custom op syntax (and so needs `translate`)."""
    return _CUSTOM_OP.search(_LINE_COMMENT.sub("", text)) is not None


def translate(text: str, filename: str) -> str:
    """Generic-form MLIR for MIGraphX `text`; AccelError at (filename, line, col) if malformed."""
    try:
        tree = _parser().parse(text)
    except lark.exceptions.UnexpectedInput as e:
        raise _syntax_error(e, text, filename) from None
    return _Emitter(text, filename).module(tree)


def _syntax_error(e: lark.exceptions.UnexpectedInput, text: str, filename: str) -> AccelError:
    line, col = max(e.line, 1), max(e.column, 1)
    source_line = (text.splitlines() or [""])[min(line, len(text.splitlines() or [""])) - 1]
    if "mhal.launch" in source_line:
        # rocMLIR's test harness wraps a kernel in a launching function: a host-side
        # construct, not a MIGraphX kernel.
        return AccelError("'mhal.launch' (rocMLIR's test-harness launch wrapper) is not "
                          "supported; pass the kernel function alone", (filename, line, col))
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        return AccelError(f"unexpected character '{text[e.pos_in_stream]}'", (filename, line, col))
    tok = getattr(e, "token", None)
    if isinstance(e, lark.exceptions.UnexpectedEOF) or tok.type == "$END":
        # lark places the end token oddly; point just past the last character instead.
        last = text.rstrip().splitlines() or [""]
        line, col = len(last), len(last[-1]) + 1
        msg = "unexpected end of input"
    else:
        msg = f"unexpected '{tok}'"
    expected = sorted({TERMINAL_WORDS.get(t, repr(t.lower()))
                       for t in (getattr(e, "accepts", None) or getattr(e, "expected", None) or ())})
    if expected:
        msg += f"; expected {' or '.join(expected)}"
    return AccelError(msg, (filename, line, col))


class _Emitter:
    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.file_json = json.dumps(filename)

    # ---- helpers -----------------------------------------------------------
    def loc(self, node) -> str:
        line, col = (node.line, node.column)
        return f"loc({self.file_json}:{line}:{col})"

    def where(self, node) -> tuple[str, int, int]:
        return self.filename, node.line, node.column

    def source(self, node) -> str:
        return self.text[node.meta.start_pos:node.meta.end_pos]

    def type_(self, node) -> str:
        tok = node.children[0]
        prefix = {"SHAPED": "!migraphx.shaped<", "TENSOR": "tensor<"}.get(tok.type, "<")
        body = tok[len(prefix):-1]
        try:
            return str(ShapedType.parse_body(body))
        except AccelError as e:
            raise AccelError(e.message, self.where(tok)) from None

    def attr_dict(self, node) -> str:
        return "" if node is None else " " + self.source(node)

    # ---- structure ---------------------------------------------------------
    def module(self, tree) -> str:
        top = tree.children[0]
        if top.data == "module":
            funcs = [c for c in top.children if isinstance(c, lark.Tree) and c.data == "func"]
            attrs = next((c for c in top.children
                          if isinstance(c, lark.Tree) and c.data == "attr_dict"), None)
            head = "module" + (f" attributes{self.attr_dict(attrs)}" if attrs else "")
            where = self.loc(top.meta)
        else:
            funcs = list(tree.children)
            head, where = "module", ""
        body = "\n".join(self.func(f) for f in funcs)
        return f"{head} {{\n{body}\n}}" + (f" {where}" if where else "") + "\n"

    def func(self, node) -> str:
        visibility, name, args, results, attrs, body = node.children
        scope: dict[str, str] = {}
        arg_texts = []
        for arg in (a for a in args.children if a is not None):
            vid, typ, arg_attrs = arg.children
            self.define(scope, vid, self.type_(typ))
            arg_texts.append(f"{vid}: {scope[vid]}{self.attr_dict(arg_attrs)} {self.loc(vid)}")
        result_types, result_texts = self.results(results)
        sig = f"func.func {visibility + ' ' if visibility else ''}{name}({', '.join(arg_texts)})"
        if result_texts:
            sig += " -> " + (result_texts[0] if len(result_texts) == 1 and "{" not in result_texts[0]
                             else f"({', '.join(result_texts)})")
        if attrs is not None:
            sig += f" attributes{self.attr_dict(attrs)}"
        lines = [f"  {sig} {{"]
        returned = False
        for stmt in body.children:
            if stmt.data == "ret":
                lines.append("    " + self.ret(stmt, scope, result_types))
                returned = True
            else:
                lines.append("    " + self.op(stmt, scope))
        if not returned:
            raise AccelError(f"function {name} has no return", self.where(node.meta))
        lines.append(f"  }} {self.loc(node.meta)}")
        return "\n".join(lines)

    def results(self, node) -> tuple[list[str], list[str]]:
        if node is None:
            return [], []
        if node.data == "single_result":
            t = self.type_(node.children[0])
            return [t], [t]
        types, texts = [], []
        for r in node.children:
            if r is None:
                continue
            t = self.type_(r.children[0])
            types.append(t)
            texts.append(t + self.attr_dict(r.children[1]))
        return types, texts

    def define(self, scope: dict[str, str], vid, typ: str) -> None:
        if str(vid) in scope:
            raise AccelError(f"redefinition of SSA value '{vid}'", self.where(vid))
        scope[str(vid)] = typ

    def use(self, scope: dict[str, str], vid, typ: str | None = None) -> str:
        if str(vid) not in scope:
            raise AccelError(f"use of undefined value '{vid}'", self.where(vid))
        if typ is not None and scope[str(vid)] != typ:
            raise AccelError(f"'{vid}' has type {scope[str(vid)]} but is used as {typ}",
                             self.where(vid))
        return str(vid)

    # ---- statements --------------------------------------------------------
    def op(self, node, scope: dict[str, str]) -> str:
        if node.data == "literal_op":
            result, name, value, attrs, typ = node.children
            self.check_name(name)
            out = self.type_(typ)
            extra = self.source(attrs)[1:-1].strip() if attrs is not None else ""
            attr_text = "{value = " + self.source(value) + (f", {extra}" if extra else "") + "}"
            self.define(scope, result, out)
            return f'{result} = "{name}"() {attr_text} : () -> {out} {self.loc(result)}'
        result, name, operands, attrs, in_types, _arrow, out_type = node.children
        if name.type == "STRING":   # the older form's quoted op name
            name = name.update(value=name[1:-1])
        if str(name) == "tosa.const" and operands is None:
            # rocMLIR's tests spell a constant in the tensor-typed form as TOSA's
            # (`"tosa.const"() {value = dense<..>}`): MIGraphX's literal, attributes alike.
            name = name.update(value="migraphx.literal")
        self.check_name(name)
        if node.data == "plain_op":
            values, scales = self.scaled(operands, lambda v: v)
            types, scale_types = self.scaled(in_types, self.type_)
        else:
            values = list(operands.children) if operands is not None else []
            types = [self.type_(t) for t in in_types.children] if in_types is not None else []
            scales, scale_types = [], []
        if len(types) != len(values):
            raise AccelError(f"'{name}' has {len(values)} operand(s) but {len(types)} operand "
                             f"type(s)", self.where(result))
        if [s is None for s in scales] != [t is None for t in scale_types]:
            raise AccelError(f"'{name}' operands and their types disagree on which "
                             f"operands are 'scaled by' block scales", self.where(result))
        uses = [self.use(scope, v, t) for v, t in zip(values, types)]
        attr_text = self.attr_dict(attrs)
        if any(s is not None for s in scales):
            # The block scales follow the operands, as MLIR's optional operand groups do:
            # operandSegmentSizes counts (operands..., scale of each).
            present = [(s, t) for s, t in zip(scales, scale_types) if s is not None]
            uses += [self.use(scope, s, t) for s, t in present]
            types += [t for _, t in present]
            sizes = ", ".join(["1"] * len(values) + ["0" if s is None else "1" for s in scales])
            segment = f"operandSegmentSizes = array<i32: {sizes}>"
            given = self.source(attrs)[1:-1].strip() if attrs is not None else ""
            attr_text = f" {{{segment}{', ' + given if given else ''}}}"
        out = self.type_(out_type)
        self.define(scope, result, out)
        return (f'{result} = "{name}"({", ".join(uses)}){attr_text} : '
                f'({", ".join(types)}) -> {out} {self.loc(result)}')

    @staticmethod
    def scaled(node, read) -> tuple[list, list]:
        """(the items, the 'scaled by' item of each or None) of an op_operands/op_types
        list, each item through `read`."""
        items, scales = [], []
        for child in node.children:
            item, by, scale = child.children
            items.append(read(item))
            scales.append(None if by is None else read(scale))
        return items, scales

    def check_name(self, name) -> None:
        if not str(name).startswith("migraphx."):
            raise AccelError(f"expected a 'migraphx.' op, got '{name}'", self.where(name))

    def ret(self, node, scope: dict[str, str], result_types: list[str]) -> str:
        keyword, operands, types = node.children
        values = list(operands.children) if operands is not None else []
        typs = [self.type_(t) for t in types.children] if types is not None else []
        if len(values) != len(typs):
            raise AccelError(f"return has {len(values)} value(s) but {len(typs)} type(s)",
                             self.where(keyword))
        if typs != result_types:
            raise AccelError(f"return types ({', '.join(typs)}) do not match the function "
                             f"result types ({', '.join(result_types)})", self.where(keyword))
        uses = [self.use(scope, v, t) for v, t in zip(values, typs)]
        tail = f" {', '.join(uses)} : {', '.join(typs)}" if uses else ""
        return f"func.return{tail} {self.loc(keyword)}"
