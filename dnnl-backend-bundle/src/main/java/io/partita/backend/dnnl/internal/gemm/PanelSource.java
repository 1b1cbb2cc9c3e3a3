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
     * A source that packs each panel on the fly, into any array at any offset: {@link #panel} packs
     * into the scratch, and {@link ChannelGemm} packs a chunk of panels side by side directly.
     */
    interface Packing extends PanelSource {
        /** The panel's rows [k0, k0 + kc) as K-major groups of {@link Sgemm#NR} floats, into {@code to} from {@code at}. */
        void pack(int panel, int k0, int kc, float[] to, int at);

        @Override
        default float[] panel(int panel, int k0, int kc, float[] scratch) {
            pack(panel, k0, kc, scratch, 0);
            return scratch;
        }

        @Override
        default int offset(int panel, int k0) {
            return 0;
        }
    }
}
