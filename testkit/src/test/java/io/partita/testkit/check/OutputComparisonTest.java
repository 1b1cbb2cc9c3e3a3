package io.partita.testkit.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;

import org.junit.jupiter.api.Test;

import io.partita.graph.DataType;
import io.partita.graph.Engine;
import io.partita.graph.LayoutType;
import io.partita.graph.LogicalTensor;
import io.partita.graph.PropertyType;
import io.partita.graph.Tensor;

/** Tolerances: relative to each element, with a floor at a tenth of the tensor's largest magnitude. */
class OutputComparisonTest {

    @Test
    void smallRelativeErrorsPass() {
        assertTrue(OutputComparison.compare(new double[] {1, -2, 100}, new double[] {1.00005, -2.0001, 100.005}, 1e-5, 1e-4)
                .matches());
    }

    @Test
    void errorsNearZeroAreJudgedAgainstTheTensorScale() {
        // 1e-3 off on a value of 0.01 in a tensor reaching 100: fine for float accumulation
        assertTrue(OutputComparison.compare(new double[] {0.01, 100}, new double[] {0.011, 100}, 1e-5, 1e-4).matches());
        // but not 0.1 off
        OutputComparison.Result r = OutputComparison.compare(new double[] {0.01, 100}, new double[] {0.11, 100}, 1e-5, 1e-4);
        assertFalse(r.matches());
        assertEquals(0, r.worstIndex());
        assertEquals(1, r.mismatches());
    }

    @Test
    void nanMatchesNanAndInfinitiesMustAgree() {
        assertTrue(OutputComparison.compare(new double[] {Double.NaN, Double.POSITIVE_INFINITY},
                new double[] {Double.NaN, Double.POSITIVE_INFINITY}, 0, 0).matches());
        assertFalse(OutputComparison.compare(new double[] {Double.NaN}, new double[] {0}, 1, 1).matches());
        assertFalse(OutputComparison.compare(new double[] {Double.POSITIVE_INFINITY}, new double[] {1e30}, 1, 1).matches());
        assertFalse(OutputComparison.compare(new double[] {1, 2}, new double[] {1}, 1, 1).matches());
    }

    @Test
    void quantizedOutputsMayDifferByOneStepOnly() {
        double[] t = OutputComparison.tolerance(io.partita.graph.DataType.S8);
        assertTrue(OutputComparison.compare(new double[] {-1, 5, 127}, new double[] {0, 4, 127}, t[0], t[1]).matches());
        assertFalse(OutputComparison.compare(new double[] {-1, 5}, new double[] {1, 5}, t[0], t[1]).matches());
        double[] exact = OutputComparison.tolerance(io.partita.graph.DataType.S32);
        assertFalse(OutputComparison.compare(new double[] {7}, new double[] {8}, exact[0], exact[1]).matches());
    }

    /** Tensors are compared element by element from memory, in logical order whatever their strides. */
    @Test
    void tensorsAreComparedInLogicalOrderAcrossLayouts() {
        long[] dims = {2, 3};
        double[] values = {1, 2, 3, 4, 5, 6};
        try (Arena arena = Arena.ofConfined()) {
            Tensor dense = Tensor.allocate(LogicalTensor.of(0, DataType.F32, dims), Engine.cpu(), arena);
            dense.copyFrom(values);
            Tensor columnMajor = Tensor.allocate(LogicalTensor.of(0, DataType.F32, dims, LayoutType.STRIDED,
                    new long[] {1, 2}, PropertyType.UNDEF), Engine.cpu(), arena);
            columnMajor.copyFrom(values);
            assertTrue(OutputComparison.compare(dense, columnMajor).matches());
            values[4] = 50;
            columnMajor.copyFrom(values);
            OutputComparison.Result r = OutputComparison.compare(dense, columnMajor);
            assertFalse(r.matches());
            assertEquals(4, r.worstIndex());
            assertEquals(5, r.expected());
            assertEquals(50, r.actual());
            Tensor shorter = Tensor.allocate(LogicalTensor.of(0, DataType.F32, 5), Engine.cpu(), arena);
            OutputComparison.Result sizes = OutputComparison.compare(dense, shorter);
            assertFalse(sizes.matches());
            assertEquals(6, sizes.elements());
        }
    }

    @Test
    void deviationsRaiseTheFixedToleranceButNeverLowerIt() {
        double lambda = OutputComparison.deviationsAllowed(2);
        // two elements: λ = sqrt(2 ln(4e6)), about 5.5 deviations
        assertEquals(Math.sqrt(2 * Math.log(4e6)), lambda, 1e-12);
        double[] e = {100, 1};
        double[] dev = {0.1, 0};
        assertTrue(OutputComparison.compareDeviations(e, new double[] {100 + 0.99 * lambda * 0.1, 1}, dev, 1e-5, 1e-4)
                .matches());
        OutputComparison.Result r = OutputComparison.compareDeviations(e, new double[] {100 + 1.01 * lambda * 0.1, 1},
                dev, 1e-5, 1e-4);
        assertFalse(r.matches());
        assertEquals(1, r.mismatches());
        assertEquals(0, r.worstIndex());
        // no deviation: the fixed tolerance (1e-5 + 1e-4 · max(1, 10)) still applies
        assertTrue(OutputComparison.compareDeviations(e, new double[] {100, 1.001}, dev, 1e-5, 1e-4).matches());
        assertFalse(OutputComparison.compareDeviations(e, new double[] {100, 1.002}, dev, 1e-5, 1e-4).matches());
    }

    @Test
    void moreElementsAllowMoreDeviationsForTheSameFalseAlarmRate() {
        assertTrue(OutputComparison.deviationsAllowed(1_000_000) > OutputComparison.deviationsAllowed(1000));
        // 32768 elements (the attention example's output): about 7 deviations
        assertEquals(7.06, OutputComparison.deviationsAllowed(32768), 0.01);
    }

    @Test
    void deviationsForTheWrongNumberOfElementsAreRefused() {
        IllegalArgumentException x = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> OutputComparison.compareDeviations(new double[] {1, 2}, new double[] {1, 2}, new double[] {0}, 0, 0));
        assertTrue(x.getMessage().contains("deviations for 1 elements, expected values for 2"), x.getMessage());
    }
}
