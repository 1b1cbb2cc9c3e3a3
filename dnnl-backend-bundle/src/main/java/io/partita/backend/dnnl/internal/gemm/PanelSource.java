package io.partita.backend.dnnl.internal.gemm;

/**
 * Where the micro-kernel's B panels come from: a matrix packed once ({@link PackedB}, e.g. constant
 * weights) or panels packed on the fly by the thread that uses them (e.g. an im2col view of a
 * convolution's input).
 */
public interface PanelSource {

    int k();

    int n();

    default int panels() {
        return (n() + Sgemm.NR - 1) / Sgemm.NR;
    }

    /**
     * The panel's rows [k0, k0 + kc) as K-major groups of {@link Sgemm#NR} floats, in {@code scratch}
     * (length >= kc * NR) or in a pre-packed array.
     *
     * @return the array holding the rows, and {@link #offset} tells where they start
     */
    float[] panel(int panel, int k0, int kc, float[] scratch);

    /** Where the rows returned by the last {@link #panel} call start in the returned array. */
    int offset(int panel, int k0);

    /**
     * All K rows of the panel into {@code to} from {@code at} (kc * NR floats), the layout {@link #panel}
     * returns: sources that pack on the fly write there directly instead of through a scratch panel.
     */
    default void packInto(int panel, int kc, float[] to, int at) {
        float[] from = panel(panel, 0, kc, new float[kc * Sgemm.NR]);
        System.arraycopy(from, offset(panel, 0), to, at, kc * Sgemm.NR);
    }
}
