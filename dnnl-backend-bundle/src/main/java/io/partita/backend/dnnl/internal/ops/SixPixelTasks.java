package io.partita.backend.dnnl.internal.ops;

/**
 * The task space of the pixel-rows convolutions: (outer index, block of pixels, weight panel, group
 * of six pixels), six-pixel groups innermost so a panel stays hot over a block. Only groups that
 * hold pixels are tasks: the last block of an image is usually short (14x14 is 196 pixels, two
 * blocks of 96 and one of 4), and counting its empty groups as tasks made an even split of the
 * count an uneven split of the work (96 against 36 real tasks on two threads at 14x14).
 *
 * <p>A cursor is per thread range: {@link #seek} decodes a task index, and the fields describe
 * the run of tasks of one (outer, block, panel) that starts there.
 */
final class SixPixelTasks {
    private final int pixels;
    private final int blockPixels;
    private final int panels;
    private final int groups;
    private final int perBlock;

    /** Outer index (image in chunk and conv group, as the caller numbers them). */
    int outer;
    /** Pixel block, and its index among all (outer, block) pairs (a key for per-block buffers). */
    int block;
    int blockKey;
    int panel;
    /** First pixel of the run, and one past its last (within the image). */
    int px0;
    int px1;
    /** Tasks in the run (at most up to the range's end). */
    int length;

    /** {@code blockPixels} a multiple of 6. */
    SixPixelTasks(int pixels, int blockPixels, int panels) {
        this.pixels = pixels;
        this.blockPixels = blockPixels;
        this.panels = panels;
        this.groups = (pixels + 5) / 6;
        this.perBlock = blockPixels / 6;
    }

    /** Tasks per outer index. */
    int perOuter() {
        return panels * groups;
    }

    /** Pixel blocks per outer index. */
    int blocks() {
        return (pixels + blockPixels - 1) / blockPixels;
    }

    /** Decodes task u of a range ending at {@code end}; the run it starts is at most {@code end - u} long. */
    void seek(int u, int end) {
        int per = perOuter();
        outer = u / per;
        int r = u - outer * per;
        int full = perBlock * panels;
        block = r / full;
        int inBlock = Math.min(perBlock, groups - block * perBlock);
        int r2 = r - block * full;
        panel = r2 / inBlock;
        int g0 = r2 - panel * inBlock;
        int g1 = Math.min(inBlock, g0 + end - u);
        int first = block * blockPixels;
        px0 = first + 6 * g0;
        px1 = Math.min(pixels, first + 6 * g1);
        length = g1 - g0;
        blockKey = outer * blocks() + block;
    }
}
