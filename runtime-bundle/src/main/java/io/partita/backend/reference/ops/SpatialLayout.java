package io.partita.backend.reference.ops;

import io.partita.runtime.schema.ops.ConvPoolGeometry;

/**
 * Where the elements of a dense {@code NCX} or {@code NXC} data tensor sit, seen as
 * {@code [N][C][D][H][W]} with 1 to 3 spatial dims padded in front with size-1 dims: element
 * {@code (n, c, s)} (s the flat spatial index) is at {@code n * nStride + c * cStride + s * xStride}.
 */
record SpatialLayout(int n, int c, int[] sp, int nStride, int cStride, int xStride) {

    static SpatialLayout of(long[] dims, String dataFormat) {
        int rank = dims.length;
        int n = (int) dims[0];
        int c = (int) dims[ConvPoolGeometry.channelAxis(dataFormat, rank)];
        int[] sp = to3(ConvPoolGeometry.dataSpatial(dims, dataFormat), 1);
        int size = sp[0] * sp[1] * sp[2];
        boolean ncx = ConvPoolGeometry.channelsFirst(dataFormat);
        return new SpatialLayout(n, c, sp, c * size, ncx ? size : 1, ncx ? 1 : c);
    }

    /** Number of spatial positions. */
    int size() {
        return sp[0] * sp[1] * sp[2];
    }

    /** Offset of channel {@code ch} of batch {@code b} at spatial position 0. */
    int base(int b, int ch) {
        return b * nStride + ch * cStride;
    }

    /** A per-spatial-dim attribute as three ints, padded in front with {@code fill}. */
    static int[] to3(long[] v, int fill) {
        int[] r = {fill, fill, fill};
        for (int i = 0; i < v.length; i++) {
            r[3 - v.length + i] = Math.toIntExact(v[i]);
        }
        return r;
    }
}
