package io.partita.spi;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import io.partita.graph.EngineKind;
import io.partita.graph.FpMathMode;
import io.partita.graph.Op;

/** A read-only view of a finalized graph while backends claim ops. */
@ProviderType
public interface GraphView {

    EngineKind engineKind();

    FpMathMode fpMathMode();

    /** All ops in topological order, with attribute defaults and inferred dims. */
    List<Op> ops();

    Op op(long opId);

    /** True when a higher-ranked backend (or an earlier claim) took the op already. */
    boolean isClaimed(long opId);

    /** The op producing a tensor, or null for a graph input. */
    Op producer(long tensorId);

    /** The ops reading a tensor, in topological order. */
    List<Op> consumers(long tensorId);

    /** True when the tensor leaves the graph (not consumed, or consumed by an End op). */
    boolean isGraphOutput(long tensorId);
}
