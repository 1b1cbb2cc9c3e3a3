package io.partita.cli.run;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.partita.formats.json.GraphJson;
import io.partita.formats.onnx.OnnxModel;
import io.partita.formats.onnx.OnnxModels;
import io.partita.formats.onnx.OnnxTensor;
import io.partita.graph.GraphRuntime;
import io.partita.graph.OpKind;
import io.partita.graph.PartitaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Converts an ONNX model to oneDNN graph JSON. The JSON format carries no tensor values: the
 * initializers become constant input tensors without data, and {@code --constants DIR} writes their
 * values next to it (one raw little-endian file per tensor id plus an index, constants.json).
 */
@Command(name = "convert", description = "Converts an ONNX model (.onnx) to oneDNN graph JSON.")
public final class ConvertCommand implements Callable<Integer> {
    private final GraphRuntime runtime;
    private final PrintStream out;

    @Parameters(index = "0", paramLabel = "MODEL.onnx", description = "ONNX model")
    Path model;

    @Parameters(index = "1", paramLabel = "OUT.json", description = "graph JSON file to write")
    Path json;

    @Option(names = "--constants", paramLabel = "DIR",
            description = "also write the constant inputs' values (initializers) into DIR: tensor_<id>.bin + constants.json")
    Path constantsDir;

    @Option(names = "--dim", paramLabel = "NAME=VALUE",
            description = "value of a symbolic input dim of an ONNX model (e.g. --dim N=8); repeatable")
    java.util.Map<String, Long> dims;

    public ConvertCommand(GraphRuntime runtime, PrintStream out) {
        this.runtime = runtime;
        this.out = out;
    }

    @Override
    public Integer call() {
        if (!Files.isRegularFile(model)) {
            throw new BadInputException("no such model file: " + model);
        }
        if (!LoadedGraph.isOnnx(model)) {
            throw new BadInputException("convert reads an ONNX model (MODEL.onnx) and writes graph JSON; " + model
                    + " is not a .onnx file");
        }
        Dims.check(dims);
        // Checked before the model is read: a typo in the output path must not cost a long import.
        Path folder = json.toAbsolutePath().getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            throw new BadInputException("cannot write " + json + ": no such folder " + folder);
        }
        if (Files.isDirectory(json)) {
            throw new BadInputException("cannot write " + json + ": it is a folder; give a file name (OUT.json)");
        }
        if (constantsDir != null && Files.exists(constantsDir) && !Files.isDirectory(constantsDir)) {
            throw new BadInputException("--constants " + constantsDir + ": exists and is not a folder");
        }
        OnnxModel m;
        try {
            m = OnnxModels.read(runtime.opSchemas(), model, dims == null ? java.util.Map.of() : dims);
        } catch (PartitaException e) {
            throw new BadInputException(e.getMessage());
        }
        GraphJson.write(m.graph(), json);
        out.println("wrote " + json + ": " + m.graph().ops().size() + " ops, " + m.inputs().size()
                + " runtime inputs, " + m.constants().size() + " constant inputs, " + m.outputs().size() + " outputs");
        if (!m.extensionOps().isEmpty()) {
            out.println("note: the graph uses Partita extension ops "
                    + m.extensionOps().stream().map(OpKind::spelling).toList()
                    + ", which are not in oneDNN's op set: oneDNN will not load this file; Partita will");
        }
        if (!m.constants().isEmpty()) {
            if (constantsDir == null) {
                out.println("note: graph JSON carries no tensor values; the " + m.constants().size()
                        + " constant inputs (initializers, tensor ids " + abbreviate(m.constants().keySet())
                        + ") are written without data; use --constants DIR to save their values");
            } else {
                try {
                    writeConstants(m);
                } catch (IOException e) {
                    throw new BadInputException("cannot write constants to " + constantsDir + ": " + e);
                }
                out.println("wrote " + m.constants().size() + " constant values to " + constantsDir);
            }
        }
        return 0;
    }

    private void writeConstants(OnnxModel m) throws IOException {
        Files.createDirectories(constantsDir);
        List<Map<String, Object>> index = new ArrayList<>();
        for (Map.Entry<Long, OnnxTensor> e : m.constants().entrySet()) {
            String file = "tensor_" + e.getKey() + ".bin";
            Files.write(constantsDir.resolve(file), e.getValue().data());
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", e.getKey());
            entry.put("name", e.getValue().name());
            entry.put("data_type", e.getValue().dataType().spelling());
            entry.put("shape", e.getValue().dims());
            entry.put("file", file);
            index.add(entry);
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(constantsDir.resolve("constants.json").toFile(), Map.of("constants", index));
    }

    private static String abbreviate(java.util.Collection<Long> ids) {
        List<Long> l = List.copyOf(ids);
        return l.size() <= 8 ? l.toString() : l.subList(0, 8) + " and " + (l.size() - 8) + " more";
    }
}
