// Issue 25, item 3: optional integers are plain `integer`s left out of
// `required`, never `["integer", "null"]` (which clients such as the MCP
// Inspector cannot map, so they send the value as a string).
import { test } from "node:test";
import assert from "node:assert/strict";
import { withServer, call, ok } from "./harness.mjs";
import { FILES } from "./fixtures.mjs";

/// Every property schema of an input schema, nested ones included, with
/// its path ("read_file.start_line", "apply_edit.execution_plan.limits…").
function properties(schema, at, out = []) {
  if (!schema || typeof schema !== "object") return out;
  for (const [name, prop] of Object.entries(schema.properties || {})) {
    out.push([`${at}.${name}`, prop]);
    properties(prop, `${at}.${name}`, out);
  }
  if (schema.items) properties(schema.items, `${at}[]`, out);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const sub of schema[key] || []) properties(sub, at, out);
  }
  return out;
}

test("read_file takes start_line as a JSON number", () => withServer(FILES, async (repo, { client }) => {
  const r = ok(await call(client, "read_file", { path: "a.txt", start_line: 2, end_line: 3 }), "read_file");
  assert.equal(r.content, "two\nthree\n");
}));

test("no input property is typed with \"null\"", () => withServer(FILES, async (repo, { tools }) => {
  const nullable = [];
  for (const tool of tools) {
    for (const [where, prop] of properties(tool.inputSchema, tool.name)) {
      if (Array.isArray(prop.type) && prop.type.includes("null")) nullable.push(`${where}: ${JSON.stringify(prop.type)}`);
    }
  }
  assert.deepEqual(nullable, [], `properties typed with null:\n${nullable.join("\n")}`);
}));

test("the optional integers the issue names are plain integers, not required", () => withServer(FILES, async (repo, { tools }) => {
  const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
  const wanted = [
    ["read_file", "start_line"], ["read_file", "end_line"], ["audit_log", "limit"],
    ["show_proposal", "max_diff_bytes"], ["propose_edit", "max_diff_bytes"],
  ];
  for (const [tool, field] of wanted) {
    const schema = byName[tool];
    assert.ok(schema?.properties?.[field], `${tool} has ${field}`);
    assert.equal(schema.properties[field].type, "integer", `${tool}.${field} type`);
    assert.ok(!(schema.required || []).includes(field), `${tool}.${field} is not required`);
  }
}));
