package io.partita.backend.reference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import io.partita.backend.reference.kernel.RefContext;
import io.partita.backend.reference.kernel.RefMemory;
import io.partita.backend.reference.kernel.RefTensor;
import io.partita.graph.DataType;
import io.partita.graph.ElementCodec;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Stream;
import io.partita.graph.Tensor;
import io.partita.runtime.schema.registry.OpSchemas;
import io.partita.spi.CompileRequest;
import io.partita.spi.Kernel;

/**
 * Interprets a partition op by op: inputs are read into doubles, each op computes its outputs
 * (whose dims are inferred from the actual inputs, so dynamic shapes need nothing special),
 * every op output is rounded to its data type, and the partition outputs are written back.
 */
final class ReferenceKernel implements Kernel {
    private static final int SHAPE_VALUE_LIMIT = 64;

    private final CompileRequest request;
    private final LongSupplier memoryLimit;

    ReferenceKernel(CompileRequest request, LongSupplier memoryLimit) {
        this.request = request;
        this.memoryLimit = memoryLimit;
    }

    @Override
    public void execute(Stream stream, List<Tensor> inputs, List<Tensor> outputs) {
        Map<Long, RefTensor> env = new HashMap<>();
        Map<Long, LogicalTensor> lts = new HashMap<>();
        Map<Long, long[]> values = new HashMap<>();
        // Every tensor stays in env until the partition is done: each one's doubles are taken before they are made.
        RefMemory heap = new RefMemory(memoryLimit.getAsLong(), ReferenceBackend.partitionName(request));
        for (Tensor t : inputs) {
            LogicalTensor lt = t.logicalTensor();
            heap.take(lt.id(), lt.dataType(), lt.dims());
            RefTensor r = new RefTensor(lt.dataType(), lt.dims(), t.toDoubleArray());
            env.put(t.id(), r);
            lts.put(t.id(), lt);
            recordValues(t.id(), r, values);
        }
        for (Op op : request.ops()) {
            List<RefTensor> ins = new ArrayList<>(op.inputs().size());
            List<LogicalTensor> inLts = new ArrayList<>(op.inputs().size());
            Op.Builder actual = op.toBuilder();
            for (int i = 0; i < op.inputs().size(); i++) {
                long id = op.input(i).id();
                RefTensor r = env.get(id);
                if (r == null) {
                    throw new IllegalStateException(op.describe() + ": input tensor " + id + " was not computed");
                }
                ins.add(r);
                LogicalTensor lt = lts.get(id);
                inLts.add(lt);
                actual.setInput(i, lt);
            }
            Op bound = actual.build();
            List<LogicalTensor> outLts = OpSchemas.of(op).inferOutputs(bound, inLts, values);
            long[][] outDims = new long[outLts.size()][];
            for (int i = 0; i < outLts.size(); i++) {
                LogicalTensor o = outLts.get(i);
                if (!o.isConcrete()) {
                    throw new InvalidArgumentException(op.describe() + ": output tensor " + o.id()
                            + " has no concrete dims at execution: " + LogicalTensor.dimsToString(o.dims()));
                }
                outDims[i] = o.dims();
                heap.take(o.id(), o.dataType(), o.dims());
            }
            RefContext ctx = new RefContext(bound, ins, outDims);
            RefOps.find(op.kind()).compute(ctx);
            RefTensor[] results = ctx.outputs();
            for (int i = 0; i < results.length; i++) {
                RefTensor r = results[i] != null ? results[i] : ctx.out(i);
                if (!Arrays.equals(r.dims(), outDims[i])) {
                    throw new IllegalStateException(op.describe() + ": reference kernel produced "
                            + Arrays.toString(r.dims()) + " for output " + i + ", expected " + Arrays.toString(outDims[i]));
                }
                roundInPlace(r);
                long id = op.output(i).id();
                env.put(id, r);
                lts.put(id, outLts.get(i));
                recordValues(id, r, values);
            }
        }
        for (Tensor t : outputs) {
            RefTensor r = env.get(t.id());
            if (!Arrays.equals(r.dims(), t.logicalTensor().dims())) {
                throw new InvalidArgumentException("output tensor " + t.id() + " has dims "
                        + LogicalTensor.dimsToString(t.logicalTensor().dims()) + " but the partition computed "
                        + Arrays.toString(r.dims()));
            }
            t.copyFrom(r.data());
        }
    }

    private static void roundInPlace(RefTensor r) {
        DataType dt = r.type();
        if (dt == DataType.UNDEF) {
            return;
        }
        double[] d = r.data();
        for (int i = 0; i < d.length; i++) {
            d[i] = ElementCodec.round(dt, d[i]);
        }
    }

    private static void recordValues(long id, RefTensor r, Map<Long, long[]> values) {
        if ((r.type() == DataType.S32 || r.type() == DataType.S64) && r.size() <= SHAPE_VALUE_LIMIT) {
            values.put(id, r.toLongs());
        }
    }
}
