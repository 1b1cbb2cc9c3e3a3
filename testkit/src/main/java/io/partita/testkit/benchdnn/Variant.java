package io.partita.testkit.benchdnn;

import io.partita.graph.GraphDescription;

/**
 * One concrete test of a case line after its comma alternatives are expanded.
 *
 * @param label the alternatives chosen, e.g. {@code in-shapes=0:2x3 op-kind=0:Divide}
 */
public record Variant(CaseLine line, String label, GraphDescription graph) {
}
