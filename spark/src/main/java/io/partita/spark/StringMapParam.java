package io.partita.spark;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A {@code Map<String, String>} param that saves as a JSON object, so a {@link PartitaModel} with its
 * feed and fetch maps survives {@code write().save(path)} and {@code PartitaModel.load(path)} (Spark's
 * own {@code Param} encodes only a few types).
 */
public final class StringMapParam extends Param<Map<String, String>> {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    public StringMapParam(Params parent, String name, String doc) {
        super(parent, name, doc);
    }

    @Override
    public String jsonEncode(Map<String, String> value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("param " + name() + ": cannot encode " + value, e);
        }
    }

    @Override
    public Map<String, String> jsonDecode(String json) {
        try {
            return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("param " + name() + ": expected a JSON object of strings, got " + json, e);
        }
    }
}
