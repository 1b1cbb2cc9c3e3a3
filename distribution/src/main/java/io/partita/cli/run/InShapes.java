package io.partita.cli.run;

import static io.partita.graph.LogicalTensor.DYNAMIC_DIM;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.partita.graph.Graph;
import io.partita.graph.GraphDescription;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidGraphException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.testkit.benchdnn.CaseRewriteException;
import io.partita.testkit.benchdnn.CaseRewriter;

/**
 * The {@code --in-shapes=ID:AxBxC[+ID:AxBxC...]} values of run and partitions (benchdnn graph's
 * spelling): one shape set per option, the concrete shapes of graph inputs for one execution of
 * a graph compiled once with its {@code DYNAMIC_DIM} dims. A set gives every input that has
 * dynamic dims and may repeat a static input's declared shape; static dims must keep their value.
 */
final class InShapes {
    private InShapes() {
    }

    /** One {@code --in-shapes} value: input dims by tensor id, in the order given. */
    record ShapeSet(String spec, Map<Long, long[]> dims) {
        /** The set as benchdnn writes it, e.g. {@code 0:1x12x128x64+4:1x1x1x128}. */
        String canonical() {
            return dims.entrySet().stream().map(e -> e.getKey() + ":" + shape(e.getValue()))
                    .collect(Collectors.joining("+"));
        }
    }

    private static final String FORM = "expected ID:AxBxC[+ID:AxBxC...] (dims joined by x, inputs by +, e.g."
            + " 0:1x12x128x64+4:1x1x1x128)";

    /** Syntax only, before any file is read: ids, positive dims, no layouts, no id twice. */
    static List<ShapeSet> parse(List<String> specs) {
        if (specs == null) {
            return List.of();
        }
        List<ShapeSet> sets = new ArrayList<>();
        for (String spec : specs) {
            String where = "--in-shapes=" + spec;
            if (spec.isBlank()) {
                throw new BadInputException(where + ": empty; " + FORM);
            }
            Map<Long, long[]> dims = new LinkedHashMap<>();
            for (String entry : spec.split("\\+", -1)) {
                int colon = entry.indexOf(':');
                if (colon <= 0 || colon == entry.length() - 1) {
                    throw new BadInputException(where + ": '" + entry + "' is not ID:SHAPE; " + FORM);
                }
                long id;
                try {
                    id = Long.parseLong(entry.substring(0, colon).trim());
                } catch (NumberFormatException e) {
                    throw new BadInputException(where + ": '" + entry.substring(0, colon) + "' in '" + entry
                            + "' is not a tensor id; " + FORM);
                }
                String shape = entry.substring(colon + 1);
                if (shape.contains("*")) {
                    throw new BadInputException(where + ": '" + entry + "' gives a layout (*TAG or *STRIDES);"
                            + " inputs run dense here (a tensor with dynamic dims must be dense): give the shape alone");
                }
                if (dims.put(id, parseShape(where, entry, id, shape)) != null) {
                    throw new BadInputException(where + ": tensor " + id + " is given twice");
                }
            }
            sets.add(new ShapeSet(spec, dims));
        }
        return List.copyOf(sets);
    }

    private static long[] parseShape(String where, String entry, long id, String text) {
        if (text.equals("scalar")) {
            return new long[0];
        }
        String[] parts = text.split("x", -1);
        long[] d = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                d[i] = Long.parseLong(parts[i]);
            } catch (NumberFormatException e) {
                throw new BadInputException(where + ": '" + text + "' in '" + entry + "' is not a shape; " + FORM);
            }
            if (d[i] < 1) {
                throw new BadInputException(where + ": dim " + i + " of tensor " + id + " is " + d[i]
                        + "; expected a positive size");
            }
        }
        return d;
    }

    /** The graph's inputs that have dynamic dims. */
    static List<LogicalTensor> dynamicInputs(Graph graph) {
        return graph.inputs().stream().filter(t -> t.dims() != null && t.hasDynamicDim())
                .sorted(java.util.Comparator.comparingLong(LogicalTensor::id)).toList();
    }

    /**
     * Without {@code --in-shapes}, a graph with dynamic inputs cannot run: which inputs, and the
     * option to give, with {@code ?} where a value is needed.
     */
    static void requireForDynamic(Graph graph, Path file) {
        List<LogicalTensor> dyn = dynamicInputs(graph);
        if (dyn.isEmpty()) {
            return;
        }
        LogicalTensor first = dyn.getFirst();
        String others = dyn.size() == 1 ? ""
                : ", as do inputs " + dyn.subList(1, dyn.size()).stream().map(t -> Long.toString(t.id()))
                        .collect(Collectors.joining(", "));
        String template = dyn.stream().map(t -> t.id() + ":" + template(t.dims())).collect(Collectors.joining("+"));
        throw new BadInputException(file + ": graph input " + first.id() + " " + Report.dims(first)
                + " has dynamic dims" + others + "; give their shapes with --in-shapes=" + template
                + " (? = a positive size), once per shape set to run");
    }

    private static String template(long[] dims) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < dims.length; i++) {
            sb.append(i == 0 ? "" : "x").append(dims[i] == DYNAMIC_DIM ? "?" : Long.toString(dims[i]));
        }
        return dims.length == 0 ? "scalar" : sb.toString();
    }

    private static String shape(long[] dims) {
        return dims.length == 0 ? "scalar"
                : java.util.Arrays.stream(dims).mapToObj(Long::toString).collect(Collectors.joining("x"));
    }

    /**
     * Checks a set against the graph's inputs: every id an input, the rank and the static dims as
     * declared, every input with dynamic dims given.
     */
    static void check(ShapeSet set, Graph graph) {
        String where = "--in-shapes=" + set.spec();
        Map<Long, LogicalTensor> inputs = new LinkedHashMap<>();
        graph.inputs().forEach(t -> inputs.put(t.id(), t));
        Set<Long> internal = new HashSet<>();
        for (Op op : graph.ops()) {
            op.outputs().forEach(t -> internal.add(t.id()));
        }
        for (Map.Entry<Long, long[]> e : set.dims().entrySet()) {
            long id = e.getKey();
            long[] given = e.getValue();
            LogicalTensor t = inputs.get(id);
            if (t == null) {
                throw new BadInputException(where + ": tensor " + id + (internal.contains(id)
                        ? " is computed by the graph, not one of its inputs" : " is not in the graph")
                        + "; its inputs are " + inputs.keySet().stream().sorted().toList());
            }
            long[] declared = t.dims();
            if (declared == null) {
                throw new BadInputException(where + ": input " + id + " has unknown rank in the graph; only its"
                        + " dynamic dims can be given here");
            }
            if (declared.length != given.length) {
                throw new BadInputException(where + ": input " + id + " is " + Report.dims(t) + " in the graph, rank "
                        + declared.length + ", but " + given.length + " dims (" + shape(given) + ") are given");
            }
            for (int i = 0; i < given.length; i++) {
                if (declared[i] != DYNAMIC_DIM && declared[i] != given[i]) {
                    throw new BadInputException(where + ": dim " + i + " of input " + id + " is " + given[i]
                            + " but the graph declares it static, " + Report.dims(t)
                            + "; only its dyn dims take other values");
                }
            }
        }
        for (LogicalTensor t : dynamicInputs(graph)) {
            if (!set.dims().containsKey(t.id())) {
                throw new BadInputException(where + ": input " + t.id() + " " + Report.dims(t)
                        + " has dynamic dims but is not given; add +" + t.id() + ":" + template(t.dims())
                        + " (? = a positive size)");
            }
        }
    }

    /**
     * The graph with the set's shapes, every dim static, finalized on {@code runtime}: its inputs
     * give the random values of the execution, and on the reference runtime it is the oracle.
     */
    static Graph staticGraph(GraphRuntime runtime, Path file, GraphDescription dynamic, ShapeSet set) {
        String where = "--in-shapes=" + set.spec();
        try {
            GraphDescription d = CaseRewriter.apply(runtime.opSchemas(), dynamic, Map.of("in-shapes", set.canonical()));
            Graph g = d.toGraph(runtime);
            g.finalizeGraph();
            return g;
        } catch (InvalidGraphException | CaseRewriteException e) {
            throw new BadInputException(where + ": these shapes do not fit " + file + ": " + e.getMessage());
        }
    }
}
