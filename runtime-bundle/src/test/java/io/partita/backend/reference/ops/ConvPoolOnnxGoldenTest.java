package io.partita.backend.reference.ops;

import static io.partita.backend.reference.ops.ConvPoolTesting.anyShape;
import static io.partita.backend.reference.ops.ConvPoolTesting.f32;
import static io.partita.backend.reference.ops.ConvPoolTesting.l;
import static io.partita.backend.reference.ops.ConvPoolTesting.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.partita.graph.Op;
import io.partita.graph.OpKind;
import io.partita.testing.Corpus;
import io.partita.testing.OpRunner;

/**
 * The reference pooling and convolution kernels reproduce the golden outputs of the ONNX node
 * tests (computed by ONNX's own reference) wherever ONNX's semantics coincide with oneDNN's:
 * each test's attributes (read from its model) are restated in oneDNN's terms, and AveragePool's
 * {@code count_include_pad=0} default is {@code exclude_pad=true}.
 */
class ConvPoolOnnxGoldenTest {

    record Golden(String test, OpKind kind, long[] kernel, long[] strides, long[] pb, long[] pe, String autoPad,
            boolean ceil, boolean excludePad, long[] dilations) {
        @Override
        public String toString() {
            return test;
        }
    }

    private static Golden avg(String test, long[] k, long[] s, long[] pb, long[] pe, String autoPad, boolean ceil,
            boolean exclude) {
        return new Golden(test, OpKind.AvgPool, k, s, pb, pe, autoPad, ceil, exclude, null);
    }

    private static Golden max(String test, long[] k, long[] s, long[] pb, long[] pe, String autoPad, boolean ceil,
            long[] d) {
        return new Golden(test, OpKind.MaxPool, k, s, pb, pe, autoPad, ceil, false, d);
    }

    private static Golden conv(String test, long[] s, long[] pb, long[] pe) {
        return new Golden(test, OpKind.Convolution, null, s, pb, pe, "None", false, false, l(1, 1));
    }

    static Stream<Golden> cases() {
        String n = "None";
        return Stream.of(
                avg("test_averagepool_1d_default", l(2), l(1), l(0), l(0), n, false, true),
                avg("test_averagepool_2d_default", l(2, 2), l(1, 1), l(0, 0), l(0, 0), n, false, true),
                avg("test_averagepool_2d_ceil", l(3, 3), l(2, 2), l(0, 0), l(0, 0), n, true, true),
                avg("test_averagepool_2d_pads_count_include_pad", l(3, 3), l(1, 1), l(2, 2), l(2, 2), n, false, false),
                avg("test_averagepool_2d_precomputed_pads", l(5, 5), l(1, 1), l(2, 2), l(2, 2), n, false, true),
                avg("test_averagepool_2d_precomputed_same_upper", l(3, 3), l(2, 2), l(0, 0), l(0, 0), "SAME_UPPER",
                        false, true),
                avg("test_averagepool_2d_precomputed_strides", l(2, 2), l(2, 2), l(0, 0), l(0, 0), n, false, true),
                avg("test_averagepool_2d_same_upper", l(2, 2), l(1, 1), l(0, 0), l(0, 0), "SAME_UPPER", false, true),
                avg("test_averagepool_2d_strides", l(5, 5), l(3, 3), l(0, 0), l(0, 0), n, false, true),
                max("test_maxpool_1d_default", l(2), l(1), l(0), l(0), n, false, null),
                max("test_maxpool_2d_ceil", l(3, 3), l(2, 2), l(0, 0), l(0, 0), n, true, null),
                max("test_maxpool_2d_default", l(2, 2), l(1, 1), l(0, 0), l(0, 0), n, false, null),
                max("test_maxpool_2d_dilations", l(2, 2), l(1, 1), l(0, 0), l(0, 0), n, false, l(2, 2)),
                max("test_maxpool_2d_precomputed_pads", l(5, 5), l(1, 1), l(2, 2), l(2, 2), n, false, null),
                max("test_maxpool_2d_precomputed_same_upper", l(3, 3), l(2, 2), l(0, 0), l(0, 0), "SAME_UPPER", false,
                        null),
                max("test_maxpool_2d_same_lower", l(2, 2), l(1, 1), l(0, 0), l(0, 0), "SAME_LOWER", false, null),
                max("test_maxpool_2d_same_upper", l(2, 2), l(1, 1), l(0, 0), l(0, 0), "SAME_UPPER", false, null),
                max("test_maxpool_3d_default", l(2, 2, 2), l(1, 1, 1), l(0, 0, 0), l(0, 0, 0), n, false, null),
                max("test_maxpool_3d_dilations_use_ref_impl", l(2, 2, 2), l(1, 1, 1), l(0, 0, 0), l(0, 0, 0), n,
                        false, l(2, 2, 2)),
                max("test_maxpool_3d_dilations_use_ref_impl_large", l(5, 5, 5), l(3, 3, 3), l(0, 0, 0), l(0, 0, 0), n,
                        true, l(2, 2, 2)),
                max("test_maxpool_with_argmax_2d_precomputed_strides", l(2, 2), l(2, 2), l(0, 0), l(0, 0), n, false,
                        null),
                conv("test_basic_conv_with_padding", l(1, 1), l(1, 1), l(1, 1)),
                conv("test_basic_conv_without_padding", l(1, 1), l(0, 0), l(0, 0)),
                conv("test_conv_with_strides_and_asymmetric_padding", l(2, 2), l(1, 0), l(1, 0)),
                conv("test_conv_with_strides_no_padding", l(2, 2), l(0, 0), l(0, 0)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void matchesOnnxGoldenOutput(Golden g) {
        Path dir = Corpus.root().resolve("onnx-node").resolve(g.test).resolve("test_data_set_0");
        OnnxTensorFile x = OnnxTensorFile.read(dir.resolve("input_0.pb"));
        OnnxTensorFile expected = OnnxTensorFile.read(dir.resolve("output_0.pb"));
        Op.Builder b = Op.builder(0, g.kind).attr("strides", g.strides).attr("pads_begin", g.pb).attr("pads_end", g.pe)
                .attr("auto_pad", g.autoPad).attr("data_format", "NCX").input(f32(0, x.dims()));
        double[] y;
        Op op;
        if (g.kind == OpKind.Convolution) {
            OnnxTensorFile w = OnnxTensorFile.read(dir.resolve("input_1.pb"));
            op = b.attr("dilations", g.dilations).attr("weights_format", "OIX").input(f32(1, w.dims()))
                    .output(anyShape(2)).build();
            y = run1(op, x.data(), w.data());
        } else {
            b.attr("kernel", g.kernel).attr("rounding_type", g.ceil ? "ceil" : "floor");
            if (g.kind == OpKind.AvgPool) {
                b.attr("exclude_pad", g.excludePad);
            } else if (g.dilations != null) {
                b.attr("dilations", g.dilations);
            }
            op = b.output(anyShape(2)).build();
            y = run1(op, x.data());
        }
        assertArrayEquals(expected.dims(), OpRunner.inferredDims(op, 0), "output dims");
        assertArrayEquals(expected.data(), y, 1e-5, "output values");
    }
}
