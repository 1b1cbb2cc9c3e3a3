package io.partita.console.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import jakarta.servlet.Servlet;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.felix.webconsole.servlet.AbstractServlet;
import org.apache.felix.webconsole.servlet.ServletConstants;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.partita.cache.CacheManager;
import io.partita.graph.GraphRuntime;

/**
 * The Partita page of the Felix Web Console ({@code /system/console/partita}). The page itself is a
 * static fragment and a script; the script polls {@code data.json} (a {@link Snapshot}) once a
 * second, fills the tables and draws the hit-rate chart, and posts the cache form to
 * {@code settings}. The console's own authentication guards all of it; a change additionally
 * needs the page's request header and a same-origin request, so another site's form cannot
 * post one with the browser's stored credentials.
 */
@Component(service = Servlet.class, property = {
        ServletConstants.PLUGIN_LABEL + "=" + PartitaConsolePlugin.LABEL,
        ServletConstants.PLUGIN_TITLE + "=Partita",
        ServletConstants.PLUGIN_CATEGORY + "=Partita" })
public final class PartitaConsolePlugin extends AbstractServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PartitaConsolePlugin.class);

    static final String LABEL = "partita";
    /** The header the page's script sends with a change; cross-site forms cannot set it. */
    static final String CHANGE_HEADER = "X-Partita-Console";

    private final ObjectMapper json = new ObjectMapper();
    private final Snapshot snapshot = new Snapshot(json);

    @Reference
    private GraphRuntime runtime;

    @Reference
    private CacheManager caches;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws ServletException, IOException {
        String sub = subPath(req);
        switch (sub) {
            case "/data.json" -> {
                setNoCache(res);
                writeJson(res, HttpServletResponse.SC_OK, snapshot.of(runtime, caches));
            }
            case "/res/console.js" -> resource(res, "console.js", "text/javascript");
            case "/res/console.css" -> resource(res, "console.css", "text/css");
            default -> super.doGet(req, res); // the console renders the page around renderContent
        }
    }

    @Override
    public void renderContent(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String root = String.valueOf(req.getAttribute(ServletConstants.ATTR_PLUGIN_ROOT));
        String page = text("console.html")
                .replace("${pluginRoot}", org.owasp.encoder.Encode.forHtmlAttribute(root))
                .replace("${policies}", policyOptions());
        res.getWriter().write(page);
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        if (!subPath(req).equals("/settings")) {
            writeError(res, HttpServletResponse.SC_NOT_FOUND, "no such action: " + subPath(req)
                    + "; the console posts to settings");
            return;
        }
        String refused = crossSite(req);
        if (refused != null) {
            LOG.warn("refused a console change from {}: {}", req.getRemoteAddr(), refused);
            writeError(res, HttpServletResponse.SC_FORBIDDEN, refused);
            return;
        }
        Map<String, String> fields = new HashMap<>();
        for (String f : new String[] { "target", "capacity", "policy" }) {
            String v = req.getParameter(f);
            if (v != null) {
                fields.put(f, v);
            }
        }
        try {
            CacheSettingsForm form = CacheSettingsForm.parse(fields);
            String done = form.applyTo(caches);
            LOG.info("web console ({}): constant tensor cache {}", req.getRemoteUser(), done);
            ObjectNode ok = json.createObjectNode();
            ok.put("message", "applied " + done);
            ok.set("snapshot", snapshot.of(runtime, caches));
            writeJson(res, HttpServletResponse.SC_OK, ok);
        } catch (IllegalArgumentException e) {
            // the form's own errors and the cache manager's refusals; nothing was applied
            writeError(res, HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
        }
    }

    /** Null when the request may change settings, else why not. */
    static String crossSite(HttpServletRequest req) {
        if (!"1".equals(req.getHeader(CHANGE_HEADER))) {
            return "a change needs the console page's " + CHANGE_HEADER + " header (cross-site requests are refused)";
        }
        String origin = req.getHeader("Origin");
        if (origin != null && !origin.equals("null")) {
            String host = req.getHeader("Host");
            try {
                URI o = new URI(origin);
                String originHost = o.getPort() < 0 ? o.getHost() : o.getHost() + ":" + o.getPort();
                if (host == null || !host.equalsIgnoreCase(originHost)) {
                    return "origin " + origin + " is not this console (" + host + ")";
                }
            } catch (java.net.URISyntaxException e) {
                return "origin '" + origin + "' is not a URI";
            }
        }
        return null;
    }

    /** The path below the plugin's label: {@code /data.json} for {@code /system/console/partita/data.json}. */
    private static String subPath(HttpServletRequest req) {
        String info = req.getPathInfo() == null ? "" : req.getPathInfo();
        String prefix = "/" + LABEL;
        return info.startsWith(prefix) ? info.substring(prefix.length()) : info;
    }

    private String policyOptions() {
        StringBuilder sb = new StringBuilder("<option value=\"\">(keep)</option>");
        for (String p : Snapshot.policies()) {
            sb.append("<option value=\"").append(p).append("\">").append(p).append("</option>");
        }
        return sb.toString();
    }

    private void resource(HttpServletResponse res, String name, String type) throws IOException {
        res.setContentType(type);
        res.setCharacterEncoding("UTF-8");
        res.getWriter().write(text(name));
    }

    private static String text(String name) throws IOException {
        try (InputStream in = PartitaConsolePlugin.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("console resource " + name + " is missing from the bundle");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void writeJson(HttpServletResponse res, int status, ObjectNode body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        res.setCharacterEncoding("UTF-8");
        json.writeValue(res.getWriter(), body);
    }

    private void writeError(HttpServletResponse res, int status, String message) throws IOException {
        ObjectNode body = json.createObjectNode();
        body.put("error", message);
        writeJson(res, status, body);
    }
}
