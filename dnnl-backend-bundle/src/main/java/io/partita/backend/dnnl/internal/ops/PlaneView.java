package io.partita.backend.dnnl.internal.ops;

/**
 * One image's input planes (see {@link NcxConv}) as the GEMM reads them: output pixel p at reduction
 * step kk (a channel and tap) reads {@code planes[base + pos[p] + kOff[kk]]}.
 *
 * @param planes the planes of the images being run
 * @param base where this image's planes start
 * @param pos each output pixel's plane position (from {@code base})
 * @param kOff each reduction step's offset from a pixel's position
 */
record PlaneView(float[] planes, int base, int[] pos, int[] kOff) {
}
