package io.partita.runtime.schema.ops;

import static io.partita.runtime.schema.ops.DataMovementSchemasTest.assertMentions;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.rejected;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.t;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.unknown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.OpRunner;

/**
 * The schemas of PartitaEinsum and PartitaMaxUnpool, and the data types of Partita's extension types
 * the arithmetic schemas take or refuse.
 */
class EinsumUnpoolSchemasTest {

    private static Op einsum(String equation, LogicalTensor... srcs) {
        return Op.builder(0, OpKind.PartitaEinsum).inputs(srcs).output(unknown(9, srcs[0].dataType()))
                .attr("equation", equation).build();
    }

    @Test
    void einsumInfersTheOutputDims() {
        assertArrayEquals(new long[] {5, 2, 4}, OpRunner.inferredDims(einsum("bij,bjk->bik",
                t(0, DataType.F64, 5, 2, 3), t(1, DataType.F64, 5, 3, 4)), 0));
        assertArrayEquals(new long[] {}, OpRunner.inferredDims(einsum("ii", t(0, DataType.S64, 3, 3)), 0));
    }

    @Test
    void einsumRefusesAMalformedEquationNamingTheOpAndThePart() {
        assertMentions(rejected(einsum("ij,jk->ikk", t(0, DataType.F64, 2, 3), t(1, DataType.F64, 3, 4))),
                "PartitaEinsum", "equation 'ij,jk->ikk'", "repeats label 'k'");
        assertMentions(rejected(einsum("ij,jk->ik", t(0, DataType.F64, 2, 3))), "equation 'ij,jk->ik'",
                "2 input term(s) but the op has 1 input(s)");
        assertMentions(rejected(einsum("ij,jk->ik", t(0, DataType.F64, 2, 3), t(1, DataType.F64, 4, 4))),
                "label 'j' has size 3");
        assertMentions(rejected(einsum("ij,jk->ik", t(0, DataType.F64, 2, 3), t(1, DataType.F32, 3, 4))),
                "has data type f32", "they must match");
        assertMentions(rejected(einsum("ij", t(0, DataType.BOOLEAN, 2, 3))), "has data type boolean",
                "expected one of", "f64", "u64");
    }

    private static Op unpool(LogicalTensor src, long[] kernel, long[] strides, long[] pads, LogicalTensor... more) {
        Op.Builder b = Op.builder(0, OpKind.PartitaMaxUnpool).input(src).input(t(1, DataType.S64, src.dims()));
        for (LogicalTensor m : more) {
            b.input(m);
        }
        return b.output(unknown(9, src.dataType())).attr("kernel", kernel).attr("strides", strides)
                .attr("pads_begin", pads).attr("pads_end", pads).build();
    }

    @Test
    void maxUnpoolInvertsThePoolingGeometry() {
        assertArrayEquals(new long[] {1, 2, 4, 4}, OpRunner.inferredDims(unpool(t(0, DataType.F32, 1, 2, 2, 2),
                new long[] {2, 2}, new long[] {2, 2}, new long[] {0, 0}), 0));
        // (3 - 1) * 2 - 1 - 1 + 3 = 5
        assertArrayEquals(new long[] {2, 1, 5}, OpRunner.inferredDims(unpool(t(0, DataType.F64, 2, 1, 3),
                new long[] {3}, new long[] {2}, new long[] {1}), 0));
        // output_shape known only at execution and no declared dims: dynamic dims of src's rank
        long[] d = OpRunner.inferredDims(unpool(t(0, DataType.F32, 1, 1, 2, 2), new long[] {2, 2},
                new long[] {2, 2}, new long[] {0, 0}, t(2, DataType.S64, 4)), 0);
        assertArrayEquals(new long[] {LogicalTensor.DYNAMIC_DIM, LogicalTensor.DYNAMIC_DIM,
            LogicalTensor.DYNAMIC_DIM, LogicalTensor.DYNAMIC_DIM}, d);
    }

    @Test
    void maxUnpoolRefusesAttributesThatDoNotFit() {
        assertMentions(rejected(unpool(t(0, DataType.F32, 1, 1, 2, 2), new long[] {2}, new long[] {2},
                new long[] {0})), "PartitaMaxUnpool", "has rank 4 but kernel [2] has 1 spatial dims; expected rank 3");
        assertMentions(rejected(unpool(t(0, DataType.F32, 1, 1, 2, 2), new long[] {2, 2}, new long[] {2},
                new long[] {0, 0})), "strides [2] has 1 values; expected 2");
        assertMentions(rejected(unpool(t(0, DataType.F32, 1, 1, 2, 2), new long[] {2, 2}, new long[] {0, 1},
                new long[] {0, 0})), "strides [0, 1] has 0; expected values >= 1");
        Op badIndices = Op.builder(0, OpKind.PartitaMaxUnpool).input(t(0, DataType.F32, 1, 1, 2, 2))
                .input(t(1, DataType.S64, 1, 1, 2, 3)).output(unknown(9, DataType.F32)).attr("kernel", 2L, 2L)
                .build();
        assertMentions(rejected(badIndices), "indices dim 3: 2 != 3");
        Op s32Indices = Op.builder(0, OpKind.PartitaMaxUnpool).input(t(0, DataType.F32, 1, 1, 2, 2))
                .input(t(1, DataType.S32, 1, 1, 2, 2)).output(unknown(9, DataType.F32)).attr("kernel", 2L, 2L)
                .build();
        assertMentions(rejected(s32Indices), "input 1 (indices", "has data type s32, expected one of [s64]");
    }

    @Test
    void arithmeticTakesTheExtensionTypesButDivideNoExtensionInteger() {
        for (DataType dt : new DataType[] {DataType.F64, DataType.S64, DataType.S16, DataType.U16, DataType.U64}) {
            Op add = Op.builder(0, OpKind.Add).inputs(t(0, dt, 2, 3), t(1, dt, 3)).output(unknown(2, dt)).build();
            assertArrayEquals(new long[] {2, 3}, OpRunner.inferredDims(add, 0), dt.spelling());
        }
        Op div = Op.builder(0, OpKind.Divide).inputs(t(0, DataType.S64, 2), t(1, DataType.S64, 2))
                .output(unknown(2, DataType.S64)).build();
        assertMentions(rejected(div), "Divide", "has data type s64, expected one of [bf16, f16, f32, f64]");
        Op addS8 = Op.builder(0, OpKind.Add).inputs(t(0, DataType.S8, 2), t(1, DataType.S8, 2))
                .output(unknown(2, DataType.S8)).build();
        assertMentions(rejected(addS8), "has data type s8", "s16", "u64");
    }
}
