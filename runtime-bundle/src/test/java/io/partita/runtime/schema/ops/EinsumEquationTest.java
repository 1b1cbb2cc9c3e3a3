package io.partita.runtime.schema.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Einsum equations: the output each form gives, and a malformed equation named by its bad part. */
class EinsumEquationTest {

    private static long[] out(String equation, long[]... dims) {
        int[] ranks = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            ranks[i] = dims[i].length;
        }
        EinsumEquation.Plan plan = EinsumEquation.parse(equation).bind(ranks);
        return plan.outputDims(plan.labelSizes(dims));
    }

    private static void refused(String equation, int[] ranks, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EinsumEquation.parse(equation).bind(ranks));
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
        }
    }

    @Test
    void explicitFormsGiveTheirOutputDims() {
        assertArrayEquals(new long[] {5, 2, 4}, out(" bij, bjk -> bik ", new long[] {5, 2, 3}, new long[] {5, 3, 4}));
        assertArrayEquals(new long[] {4, 3}, out("ij->ji", new long[] {3, 4}));
        assertArrayEquals(new long[] {3}, out("ij->i", new long[] {3, 4}));
        assertArrayEquals(new long[] {}, out("ii->", new long[] {3, 3}));
        assertArrayEquals(new long[] {3}, out("ii->i", new long[] {3, 3}));
        assertArrayEquals(new long[] {}, out("->", new long[] {}));
        assertArrayEquals(new long[] {2, 3}, out("i,j->ij", new long[] {2}, new long[] {3}));
    }

    @Test
    void implicitOutputIsTheEllipsisThenTheLettersUsedOnceInAsciiOrder() {
        assertArrayEquals(new long[] {}, out("i,i", new long[] {4}, new long[] {4}));
        assertArrayEquals(new long[] {2, 4}, out("ij,jk", new long[] {2, 3}, new long[] {3, 4}));
        // 'B' (66) sorts before 'a' (97); 'a' appears twice and is summed.
        assertArrayEquals(new long[] {5, 2}, out("aB,ab", new long[] {2, 5}, new long[] {2, 2}));
        assertArrayEquals(new long[] {6, 2, 4}, out("...ij,...jk", new long[] {6, 2, 3}, new long[] {3, 4}));
    }

    @Test
    void ellipsisDimsBroadcastFromTheRight() {
        assertArrayEquals(new long[] {7, 6, 2}, out("...i,...i->...i", new long[] {7, 1, 2}, new long[] {6, 2}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> out("...i,...i->...i", new long[] {5, 2}, new long[] {6, 2}));
        assertTrue(e.getMessage().contains("'...' dim 0 has size 5 in one use but 6 in input 1 dim 0"),
                e.getMessage());
    }

    @Test
    void aLetterWhoseSizesDisagreeIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> out("ij,jk->ik", new long[] {2, 3}, new long[] {4, 5}));
        assertTrue(e.getMessage().contains("label 'j' has size 3 in one use but 4 in input 1 dim 0"), e.getMessage());
    }

    @Test
    void malformedEquationsNameTheBadPart() {
        refused("ij,jk->ikk", new int[] {2, 2}, "output term 'ikk' repeats label 'k'");
        refused("ij,jk->iz", new int[] {2, 2}, "output label 'z' appears in no input term");
        refused("ij,jk->ik", new int[] {2}, "has 2 input term(s) but the op has 1 input(s)");
        refused("ij->i", new int[] {3}, "input term 0 'ij' has 2 label(s) but input 0 has rank 3");
        refused("...ijk->i", new int[] {2}, "input term 0 '...ijk' needs rank >= 3 but input 0 has rank 2");
        refused("...ij->ij", new int[] {3}, "the inputs' '...' stand for 1 dim(s) but output term 'ij' has no '...'");
        refused("i1,j->ij", new int[] {2, 1}, "input term 0 'i1' has '1' at 1");
        refused("...i...->i", new int[] {3}, "has two '...'");
        refused("i.j->ij", new int[] {2}, "input term 0 'i.j' has '.' at 1");
        refused("i->i->i", new int[] {1}, "more than one '->'");
    }
}
