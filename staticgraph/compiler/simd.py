"""numba intrinsics for the fused kernels (:mod:`.fuse`): vector code numba's Python cannot spell.

Imported only when a fused kernel is compiled (it imports numba and llvmlite).

:func:`lanes8_sum` is numpy's pairwise-sum leaf -- eight accumulators ``r[q]`` started at
``buf[q]``, ``r[q] += buf[k + q]`` for each further row of eight, combined as
``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`` -- with the eight accumulators as the lanes of one
vector register: the same additions in the same order, so the same bits.  Written as eight
scalar accumulators (LLVM does not vectorise that loop), the leaf sum read back each 32-byte
vector the element loop had just stored in ``buf`` as eight 4-byte loads, and took ~0.3 ns of
the ~2.3 ns per element of the bench's pointwise kernel (4M float32, 23 ops, fwd+bwd; 2-core
AMD EPYC Zen 1 in a VM, interleaved best of 12: in cache 2.08 -> 1.93 ns, 4M 2.31 -> 2.13 ns;
without any leaf sum: 1.81 / 2.02).
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["lanes8_sum"]


@intrinsic
def lanes8_sum(typingctx, buf, e):
    """``lanes8_sum(buf, e)``: numpy's eight-accumulator sum of ``buf[:e]`` (a contiguous
    1-D float array; ``e`` a multiple of 8, at least 8), to one scalar of its dtype."""
    if not (isinstance(buf, types.Array) and buf.ndim == 1 and isinstance(buf.dtype, types.Float)
            and isinstance(e, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0]).data
        element = context.get_data_type(array_type.dtype)
        align = context.get_abi_sizeof(element)
        vector = ir.VectorType(element, 8)
        intp = context.get_value_type(types.intp)
        end = context.cast(builder, args[1], signature.args[1], types.intp)

        def row(k):
            return builder.load(builder.bitcast(builder.gep(data, [k]), vector.as_pointer()),
                                align=align)

        acc = cgutils.alloca_once_value(builder, row(ir.Constant(intp, 0)))
        with cgutils.for_range_slice(builder, ir.Constant(intp, 8), end, ir.Constant(intp, 8),
                                     intp) as (k, _):
            builder.store(builder.fadd(builder.load(acc), row(k)), acc)
        total = builder.load(acc)
        r = [builder.extract_element(total, ir.Constant(ir.IntType(32), q)) for q in range(8)]
        add = builder.fadd
        return add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))

    return buf.dtype(buf, e), codegen
