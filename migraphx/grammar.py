"""The lark grammar of the MIGraphX dialect's custom syntax, as graph compilers print it.

Covers what a MIGraphX GEMM kernel module uses (seed 001 and rocMLIR's test files):

  module { func.func @f(%a: !migraphx.shaped<1x64xf16, 64x1>, ...) -> !migraphx.shaped<..>
           attributes {kernel, arch = "gfx942"} {
    %t = migraphx.transpose %a {permutation = [1, 0]} : <..> -> !migraphx.shaped<..>
    %c = migraphx.convert %t {target_type = 2 : i64} : <..> to <..>
    %l = migraphx.literal(dense<0.0> : tensor<1xf32>) : <1xf32, 0>
    return %c : !migraphx.shaped<..> } }

An MX-scaled quant_dot gives an operand its block scales, `%a scaled by %sa`, and its
type likewise (`<..> scaled by !migraphx.shaped<..>`). A type after `:` may be
abbreviated to `<...>`. The older form rocMLIR's tests also use,
`%1 = migraphx.dot(%a, %b) : (tensor<..>, tensor<..>) -> tensor<..>` (or the op name
quoted), reads the same, a `tensor<dims x elem>` standing for the packed row-major type.
Attribute values are kept as the text the user wrote (MLIR's own parser reads them in
the generic form we emit), so the grammar only needs their bracket structure.
"""

GRAMMAR = r"""
start: module | func+

module: "module" SYMBOL? ("attributes" attr_dict)? "{" func* "}"

func: "func.func" [VISIBILITY] SYMBOL "(" args ")" ["->" results] ["attributes" attr_dict] body
args: [arg ("," arg)*]
body: "{" stmt* "}"
arg: VALUE_ID ":" type [attr_dict]
results: type                                   -> single_result
       | "(" [result ("," result)*] ")"         -> result_list
result: type [attr_dict]

?stmt: op | ret
op: VALUE_ID "=" BARE_ID op_operands [attr_dict] ":" op_types ARROW type   -> plain_op
  | VALUE_ID "=" BARE_ID "(" literal_value ")" [attr_dict] ":" type     -> literal_op
  | VALUE_ID "=" BARE_ID "(" operands ")" [attr_dict] ":" call_types ARROW type  -> call_op
  | VALUE_ID "=" STRING "(" [operands] ")" [attr_dict] ":" call_types ARROW type -> call_op
?call_types: "(" [type_list] ")" | type_list
operands: VALUE_ID ("," VALUE_ID)*
op_operands: op_operand ("," op_operand)*
op_operand: VALUE_ID [SCALED_BY VALUE_ID]
op_types: op_type ("," op_type)*
op_type: type [SCALED_BY type]
SCALED_BY.2: /scaled\s+by\b/
type_list: type ("," type)*
ARROW: "->" | "to"
ret: RETURN [operands ":" type_list]
RETURN: "return" | "func.return"

type: SHAPED | SHORT_SHAPED | TENSOR

attr_dict: "{" [attr_entry ("," attr_entry)*] "}"
attr_entry: (BARE_ID | STRING) ("=" attr_value)?
?attr_value: array | scalar | STRING | literal_value | BARE_ID | attr_dict
array: "[" [attr_value ("," attr_value)*] "]"
scalar: NUMBER (":" BARE_ID)?
literal_value: DENSE ":" TENSOR

VISIBILITY: "private" | "public" | "nested"
SYMBOL: /@[A-Za-z_$.][\w$.]*/ | /@"[^"]*"/
VALUE_ID: /%[A-Za-z0-9_$.]+/
SHAPED.3: /!migraphx\.shaped<[^<>]*>/
SHORT_SHAPED: /<[^<>]*>/
DENSE.3: /dense<[^<>]*>/
TENSOR.3: /tensor<[^<>]*>/
NUMBER: /-?(0x[0-9A-Fa-f]+|\d+(\.\d*)?([eE][+-]?\d+)?)/
STRING: /"(\\.|[^"\\])*"/
BARE_ID: /[A-Za-z_][\w$.]*/

COMMENT: /\/\/[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""

# Terminal names as a user reads them, for "expected ..." in syntax errors.
TERMINAL_WORDS = {
    "VALUE_ID": "an SSA value (%name)",
    "SYMBOL": "a symbol (@name)",
    "SHAPED": "a type (!migraphx.shaped<...>)",
    "SHORT_SHAPED": "a type (<...>)",
    "BARE_ID": "an identifier",
    "NUMBER": "a number",
    "STRING": "a string",
    "DENSE": "dense<...>",
    "TENSOR": "tensor<...>",
    "ARROW": "'->' or 'to'",
    "SCALED_BY": "'scaled by'",
    "RETURN": "'return'",
    "VISIBILITY": "a visibility",
    "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'", "EQUAL": "'='",
    "__ANON_0": "'->'", "$END": "end of input",
}
