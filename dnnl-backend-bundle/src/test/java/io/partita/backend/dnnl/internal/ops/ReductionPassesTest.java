package io.partita.backend.dnnl.internal.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The geometries {@code ConvAgainstReferenceTest.chainsAfterAReductionInPasses} runs do reduce in
 * passes, in each kernel family: so the store's accumulate-then-finish path is what that test
 * checks against the reference, not a single-pass store.
 */
class ReductionPassesTest {

    /** 3x3, stride 1, pad 1, dense, in the given format. */
    private static ConvShape shape(int n, int ic, int h, int w, int oc, boolean nxc) {
        long sN = (long) ic * h * w;
        return nxc ? new ConvShape(n, ic, h, w, oc, h, w, 3, 3, 1, 1, 1, 1, 1, 1, 1, sN, 1, (long) w * ic, ic)
                : new ConvShape(n, ic, h, w, oc, h, w, 3, 3, 1, 1, 1, 1, 1, 1, 1, sN, (long) h * w, w, 1);
    }

    @Test
    void smallImageManyChannelsSplitsThePixelRowsReduction() {
        NcxConv ncx = new NcxConv(shape(1, 300, 7, 7, 64, false));
        assertTrue(ncx.pixelRows());
        assertEquals(2, ncx.reductionPasses());
    }

    @Test
    void wideImageManyChannelsSplitsThePixelLanesReduction() {
        NcxConv ncx = new NcxConv(shape(1, 400, 5, 300, 7, false));
        assertTrue(!ncx.pixelRows());
        assertEquals(2, ncx.reductionPasses());
    }

    @Test
    void channelsLastSplitsTheTaps() {
        assertEquals(2, new NxcConv(shape(1, 300, 7, 7, 64, true)).reductionPasses());
        assertEquals(2, new NxcConv(shape(1, 400, 5, 300, 7, true)).reductionPasses());
        assertEquals(1, new NxcConv(shape(1, 64, 7, 7, 19, true)).reductionPasses());
    }
}
