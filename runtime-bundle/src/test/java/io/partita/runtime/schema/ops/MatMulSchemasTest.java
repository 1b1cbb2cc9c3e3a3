package io.partita.runtime.schema.ops;

import static io.partita.runtime.schema.ops.DataMovementSchemasTest.assertMentions;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.f32;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.rejected;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.t;
import static io.partita.runtime.schema.ops.DataMovementSchemasTest.unknown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.testing.OpRunner;

/** MatMul review: the newer {@code accumulation_mode} attribute and mixed data types. */
class MatMulSchemasTest {

    static Op matmul(String mode) {
        Op.Builder b = Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 3), f32(1, 3, 2)).output(unknown(2, DataType.F32));
        if (mode != null) {
            b.attr("accumulation_mode", mode);
        }
        return b.build();
    }

    @Test
    void accumulationModeTakesOneDnnsValuesAndDefaultsToStrict() {
        for (String mode : List.of("strict", "relaxed", "any", "f32", "s32", "f16")) {
            Op v = OpSchemas.find(OpKind.MatMul).validate(matmul(mode));
            assertEquals(mode, v.stringAttr("accumulation_mode"));
        }
        assertEquals("strict", OpSchemas.find(OpKind.MatMul).validate(matmul(null)).stringAttr("accumulation_mode"));
    }

    @Test
    void accumulationModeRejectsOtherValuesAndTypes() {
        assertMentions(rejected(matmul("f64")), "op 0 (MatMul)", "'accumulation_mode'", "\"f64\"",
                "one of [strict, relaxed, any, f32, s32, f16]");
        assertMentions(rejected(matmul("STRICT")), "'accumulation_mode'");
        Op wrongType = Op.builder(0, OpKind.MatMul).inputs(f32(0, 2, 3), f32(1, 3, 2)).output(unknown(2,
                DataType.F32)).attr("accumulation_mode", true).build();
        assertMentions(rejected(wrongType), "'accumulation_mode'", "bool", "expected string");
    }

    @Test
    void mixedTypeCombinationsOfTheSpecAndCorpusAreAccepted() {
        DataType bf = DataType.BF16;
        DataType f = DataType.F32;
        DataType h = DataType.F16;
        // src, weights, dst: oneDNN's table (bf16 x f32 -> bf16, ...) and the corpus (bf16 x bf16 -> f32, ...).
        for (DataType[] c : new DataType[][] {{bf, f, bf}, {f, bf, bf}, {bf, bf, f}, {h, h, f}, {h, f, h}}) {
            Op op = Op.builder(0, OpKind.MatMul).inputs(t(0, c[0], 2, 3), t(1, c[1], 3, 4)).output(unknown(2, c[2]))
                    .build();
            assertArrayEquals(new long[] {2, 4}, OpRunner.inferredDims(op, 0));
        }
        Op ints = Op.builder(0, OpKind.MatMul).inputs(t(0, DataType.S8, 2, 3), t(1, DataType.S8, 3, 4))
                .output(unknown(2, DataType.F32)).build();
        assertMentions(rejected(ints), "s8", "expected one of [bf16, f16, f32]");
    }

    /** dst s32 (ONNX MatMulInteger): the reference's double sums, exact beyond f32's 2^24. */
    @Test
    void s32DstHoldsTheExactIntegerSum() {
        Op op = Op.builder(0, OpKind.MatMul).inputs(f32(0, 1, 2), f32(1, 2, 1)).output(unknown(2, DataType.S32))
                .build();
        assertArrayEquals(new long[] {1, 1}, OpRunner.inferredDims(op, 0));
        // 2^24 + 1 has no f32 representation.
        assertArrayEquals(new double[] {(1 << 24) + 1},
                OpRunner.run(op, new double[] {1 << 12, 1}, new double[] {1 << 12, 1}).get(0));
    }
}
