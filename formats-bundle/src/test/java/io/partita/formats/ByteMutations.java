package io.partita.formats;

import java.util.Arrays;
import java.util.Random;

/**
 * Format-blind mutations of a file's bytes: bit flips, interesting bytes, insertions, deletions,
 * duplicated ranges, truncation and splicing with a second file.
 */
public final class ByteMutations {
    private static final byte[] INTERESTING = {0, 1, -1, 0x7f, (byte) 0x80, '"', '{', '}', '[', ']', ',', ':', '-',
        '0', '9', 'e', '.', (byte) 0xc3, 0x08, 0x0a, 0x12, 0x1a, 0x22};

    private ByteMutations() {
    }

    /**
     * Applies one mutation; {@code other} is a second corpus file for splicing. Appends the
     * mutation's name (with its position) to {@code log}.
     */
    public static byte[] mutate(byte[] in, byte[] other, Random r, StringBuilder log) {
        int n = in.length;
        if (n == 0) {
            log.append("bytes.insert(0)");
            return randomBytes(r, 1 + r.nextInt(8));
        }
        int at = r.nextInt(n);
        switch (r.nextInt(9)) {
            case 0 -> {
                byte[] out = in.clone();
                int flips = 1 + r.nextInt(4);
                for (int i = 0; i < flips; i++) {
                    int p = i == 0 ? at : r.nextInt(n);
                    out[p] ^= (byte) (1 << r.nextInt(8));
                }
                log.append("bytes.flip(").append(at).append('x').append(flips).append(')');
                return out;
            }
            case 1 -> {
                byte[] out = in.clone();
                out[at] = INTERESTING[r.nextInt(INTERESTING.length)];
                log.append("bytes.set(").append(at).append(')');
                return out;
            }
            case 2 -> {
                byte[] ins = randomBytes(r, 1 + r.nextInt(16));
                log.append("bytes.insert(").append(at).append('+').append(ins.length).append(')');
                return concat(Arrays.copyOf(in, at), ins, Arrays.copyOfRange(in, at, n));
            }
            case 3 -> {
                int len = 1 + r.nextInt(Math.min(n - at, 64));
                log.append("bytes.delete(").append(at).append('-').append(len).append(')');
                return concat(Arrays.copyOf(in, at), Arrays.copyOfRange(in, at + len, n));
            }
            case 4 -> {
                int len = 1 + r.nextInt(Math.min(n - at, 256));
                int copies = 1 + r.nextInt(3);
                byte[] range = Arrays.copyOfRange(in, at, at + len);
                byte[] out = Arrays.copyOf(in, at + len);
                for (int i = 0; i < copies; i++) {
                    out = concat(out, range);
                }
                log.append("bytes.duplicate(").append(at).append('+').append(len).append('x').append(copies).append(')');
                return concat(out, Arrays.copyOfRange(in, at + len, n));
            }
            case 5 -> {
                log.append("bytes.truncate(").append(at).append(')');
                return Arrays.copyOf(in, at);
            }
            case 6 -> {
                int from = other.length == 0 ? 0 : r.nextInt(other.length);
                log.append("bytes.splice(").append(at).append('|').append(from).append(')');
                return concat(Arrays.copyOf(in, at), Arrays.copyOfRange(other, from, other.length));
            }
            case 7 -> {
                // Overwrite a range with one of the other file (keeps the length: offsets stay valid).
                int len = Math.min(1 + r.nextInt(32), n - at);
                byte[] out = in.clone();
                if (other.length > 0) {
                    int from = r.nextInt(other.length);
                    len = Math.min(len, other.length - from);
                    System.arraycopy(other, from, out, at, len);
                }
                log.append("bytes.overwrite(").append(at).append('+').append(len).append(')');
                return out;
            }
            default -> {
                // Swap two ranges' order by rotating the tail: moves a record behind its neighbour.
                int len = 1 + r.nextInt(Math.min(n - at, 128));
                byte[] range = Arrays.copyOfRange(in, at, at + len);
                byte[] rest = concat(Arrays.copyOf(in, at), Arrays.copyOfRange(in, at + len, n));
                int to = r.nextInt(rest.length + 1);
                log.append("bytes.move(").append(at).append('+').append(len).append("->").append(to).append(')');
                return concat(Arrays.copyOf(rest, to), range, Arrays.copyOfRange(rest, to, rest.length));
            }
        }
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = r.nextBoolean() ? INTERESTING[r.nextInt(INTERESTING.length)] : (byte) r.nextInt(256);
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        int len = 0;
        for (byte[] p : parts) {
            len += p.length;
        }
        byte[] out = new byte[len];
        int pos = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, pos, p.length);
            pos += p.length;
        }
        return out;
    }
}
