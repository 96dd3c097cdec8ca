import assert from "node:assert/strict";
import { loadConfig } from "../../shared/config/config.ts";
import { isAppError } from "../../shared/errors.ts";

Deno.test("with nothing set the defaults are PGlite on disk, port 8000 and a 10 s deadline", () => {
  const config = loadConfig({});
  assert.deepEqual(config.database, { kind: "pglite", dataDir: "./.data/pglite" });
  assert.equal(config.port, 8000);
  assert.equal(config.migrate, true);
  assert.equal(config.loop.deadlineMs, 10_000);
  assert.equal(config.loop.maxRounds, 3);
  assert.equal(config.http.maxBodyBytes, 1_048_576);
  assert.equal(config.http.corsOrigins, "loopback");
});

Deno.test("DATABASE_URL wins over SUPABASE_DB_URL; Supabase's own URL skips migrations by default", () => {
  assert.deepEqual(
    loadConfig({ DATABASE_URL: "postgres://a/db", SUPABASE_DB_URL: "postgres://b/db" }).database,
    { kind: "postgres", url: "postgres://a/db", source: "DATABASE_URL", maxConnections: 2 },
  );
  const supabase = loadConfig({ SUPABASE_DB_URL: "postgres://b/db" });
  assert.equal(supabase.database.kind, "postgres");
  assert.equal(supabase.migrate, false);
  assert.equal(
    loadConfig({ SUPABASE_DB_URL: "postgres://b/db" }, { options: { migrate: true } }).migrate,
    true,
  );
});

Deno.test("every bad value is reported at once, naming its variable or option", () => {
  assert.throws(
    () =>
      loadConfig({
        PORT: "eighty",
        MCP_LOOP_DEADLINE_MS: "5",
        MCP_LOOP_APPROVAL: "sometimes",
      }, { options: { loop: { maxRounds: 6, stepTimeoutMs: 2.5 } } }),
    (error) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, "CONFIG_INVALID");
      assert.match(error.message, /PORT must be an integer from 0 to 65535; got "eighty"/);
      assert.match(error.message, /MCP_LOOP_DEADLINE_MS must be an integer from 100/);
      assert.match(error.message, /MCP_LOOP_APPROVAL must be one of none, destructive, writes/);
      assert.match(error.message, /option loop\.maxRounds must be an integer from 1 to 5; got 6/);
      assert.match(error.message, /option loop\.stepTimeoutMs must be an integer from 10/);
      return true;
    },
  );
});

Deno.test("CORS origins are a comma-separated list", () => {
  assert.deepEqual(
    loadConfig({ MCP_LOOP_CORS_ORIGINS: "https://a.example, https://b.example" }).http.corsOrigins,
    ["https://a.example", "https://b.example"],
  );
});

Deno.test("API keys may be named; setting any makes authentication required", () => {
  const config = loadConfig({ MCP_LOOP_API_KEYS: "ci=0123456789abcdef, fedcba9876543210" });
  assert.deepEqual([...config.auth.apiKeys], [["ci", "0123456789abcdef"], [
    "key2",
    "fedcba9876543210",
  ]]);
  assert.equal(config.auth.required, true);
  assert.equal(loadConfig({}).auth.required, false);
  assert.throws(() => loadConfig({ MCP_LOOP_API_KEYS: "short" }), /shorter than 16/);
});

Deno.test("authentication is required by default once API keys or Supabase settings are present", () => {
  const required = (env: Record<string, string>) => loadConfig(env).auth.required;
  assert.equal(required({}), false);
  assert.equal(required({ MCP_LOOP_JWT_SECRET: "local-secret-of-32-characters!!!" }), false);
  assert.equal(required({ MCP_LOOP_API_KEYS: "0123456789abcdef" }), true);
  for (
    const env of [
      { SUPABASE_URL: "https://abc.supabase.co" } as Record<string, string>,
      { SUPABASE_DB_URL: "postgres://b" },
      { SUPABASE_JWT_SECRET: "project-secret-of-32-characters!!" },
      { SUPABASE_JWKS: '{"keys":[]}' },
    ]
  ) {
    assert.equal(required(env), true, JSON.stringify(env));
    assert.equal(required({ ...env, MCP_LOOP_REQUIRE_AUTH: "false" }), false);
  }
  assert.equal(required({ MCP_LOOP_REQUIRE_AUTH: "true" }), true);
});

Deno.test("the JWKS URL is derived from SUPABASE_URL unless MCP_LOOP_JWKS_URL names one", () => {
  assert.equal(loadConfig({}).auth.jwksUrl, undefined);
  assert.equal(
    loadConfig({ SUPABASE_URL: "https://abc.supabase.co/" }).auth.jwksUrl,
    "https://abc.supabase.co/auth/v1/.well-known/jwks.json",
  );
  assert.equal(
    loadConfig({ SUPABASE_URL: "http://kong:8000" }).auth.jwksUrl,
    "http://kong:8000/auth/v1/.well-known/jwks.json",
  );
  assert.equal(
    loadConfig({
      SUPABASE_URL: "https://abc.supabase.co",
      MCP_LOOP_JWKS_URL: "https://auth.example.com/jwks.json",
    }).auth.jwksUrl,
    "https://auth.example.com/jwks.json",
  );
  assert.throws(
    () => loadConfig({ MCP_LOOP_JWKS_URL: "ftp://x/jwks" }),
    /MCP_LOOP_JWKS_URL must be/,
  );
  assert.throws(() => loadConfig({ SUPABASE_URL: "abc.supabase.co" }), /SUPABASE_URL must be/);
});

Deno.test('user tokens must be meant for the audience "authenticated" unless the option auth.jwtAudience says otherwise', () => {
  assert.equal(loadConfig({}).auth.audience, "authenticated");
  const options = { auth: { jwtAudience: "my-api" } };
  assert.equal(loadConfig({}, { options }).auth.audience, "my-api");
});

Deno.test("SUPABASE_JWKS is read as a key set, and refused when it is not one", () => {
  assert.deepEqual(loadConfig({ SUPABASE_JWKS: '{"keys":[{"kty":"EC"}]}' }).auth.jwks, [{
    kty: "EC",
  }]);
  assert.deepEqual(loadConfig({ SUPABASE_JWKS: '[{"kty":"EC"}]' }).auth.jwks, [{ kty: "EC" }]);
  assert.throws(() => loadConfig({ SUPABASE_JWKS: "nope" }), /SUPABASE_JWKS must be/);
});

Deno.test("with nothing set the models are the offline defaults", () => {
  const { models } = loadConfig({});
  assert.equal(models.openai, undefined);
  assert.equal(models.embedder, "hashing");
  assert.equal(models.planner, "heuristic");
});

Deno.test("OPENAI_API_KEY switches to OpenAI embeddings, the chat planner and the seed's defaults", () => {
  const { models } = loadConfig({ OPENAI_API_KEY: "sk-x" });
  assert.equal(models.embedder, "openai");
  assert.equal(models.planner, "chat");
  assert.equal(models.embeddingModel, "text-embedding-3-small");
  assert.deepEqual(models.chat, {
    model: "gpt-4o",
    temperature: 0.3,
    maxTokens: 1000,
    responseFormat: "json_schema",
  });
});

Deno.test("OPENAI_BASE_URL alone (a local server) is enough, and each choice can be overridden", () => {
  const { models } = loadConfig({
    OPENAI_BASE_URL: "http://localhost:11434/v1",
    MCP_LOOP_EMBEDDER: "hashing",
    MCP_LOOP_CHAT_MODEL: "llama3.1",
  });
  assert.equal(models.openai?.baseUrl, "http://localhost:11434/v1");
  assert.equal(models.embedder, "hashing");
  assert.equal(models.planner, "chat");
  assert.equal(models.chat.model, "llama3.1");
});

Deno.test("asking for OpenAI without a key or base URL stops start-up", () => {
  assert.throws(
    () => loadConfig({ MCP_LOOP_PLANNER: "chat" }),
    /MCP_LOOP_PLANNER=chat needs OPENAI_API_KEY/,
  );
});

Deno.test("the sentence embedder is chosen by name locally and refused on the edge runtime", () => {
  assert.equal(loadConfig({ MCP_LOOP_EMBEDDER: "sentence" }).models.embedder, "sentence");
  assert.throws(
    () =>
      loadConfig({ MCP_LOOP_EMBEDDER: "sentence", DATABASE_URL: "postgres://db/x" }, {
        runtime: "edge",
      }),
    /MCP_LOOP_EMBEDDER=sentence runs only locally/,
  );
});

Deno.test("refinement settings default to the specification's and are read per type", () => {
  assert.deepEqual(loadConfig({}).refinement, {
    plan: { threshold: 85, maxIterations: 5 },
    spec: { threshold: 85, maxIterations: 5 },
    build_plan: { threshold: 80, maxIterations: 5 },
    build_code: { threshold: 95, maxIterations: 5 },
  });
  const config = loadConfig({
    FSDD_LOOP_PLAN_THRESHOLD: "70",
    FSDD_LOOP_SPEC_THRESHOLD: "71",
    FSDD_LOOP_BUILD_PLAN_THRESHOLD: "72",
    FSDD_LOOP_BUILD_CODE_THRESHOLD: "100",
    FSDD_LOOP_PLAN_MAX_ITERATIONS: "1",
    FSDD_LOOP_SPEC_MAX_ITERATIONS: "2",
    FSDD_LOOP_BUILD_PLAN_MAX_ITERATIONS: "3",
    FSDD_LOOP_BUILD_CODE_MAX_ITERATIONS: "20",
  });
  assert.deepEqual(config.refinement, {
    plan: { threshold: 70, maxIterations: 1 },
    spec: { threshold: 71, maxIterations: 2 },
    build_plan: { threshold: 72, maxIterations: 3 },
    build_code: { threshold: 100, maxIterations: 20 },
  });
});

Deno.test("an out-of-range or non-numeric refinement setting stops start-up naming the variable", () => {
  for (
    const [name, value] of [
      ["FSDD_LOOP_PLAN_THRESHOLD", "0"],
      ["FSDD_LOOP_SPEC_THRESHOLD", "101"],
      ["FSDD_LOOP_BUILD_CODE_THRESHOLD", "high"],
      ["FSDD_LOOP_BUILD_PLAN_MAX_ITERATIONS", "21"],
      ["FSDD_LOOP_PLAN_MAX_ITERATIONS", "2.5"],
    ]
  ) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      new RegExp(`${name} must be an integer`),
      name,
    );
  }
});

Deno.test("hybrid retrieval and working memory read their settings, and refuse bad ones", () => {
  const defaults = loadConfig({});
  assert.deepEqual(
    [defaults.memory.fullTextWeight, defaults.memory.semanticWeight, defaults.memory.rrfK],
    [1, 1, 60],
  );
  assert.equal(defaults.memory.textSearchConfig, "auto");
  assert.deepEqual(Object.keys(defaults.workingMemorySchema.properties as object), [
    "facts",
    "preferences",
  ]);
  const schema = { type: "object", properties: { name: { type: "string" } } };
  const set = loadConfig({}, {
    options: {
      memory: {
        fullTextWeight: 0.5,
        semanticWeight: 2,
        semanticWeights: { "hashing-v1": 0.5 },
        rrfK: 20,
        textSearchConfig: "english",
      },
      workingMemorySchema: schema,
    },
  });
  assert.deepEqual(
    [set.memory.fullTextWeight, set.memory.semanticWeight, set.memory.rrfK],
    [0.5, 2, 20],
  );
  assert.equal(set.memory.textSearchConfig, "english");
  assert.deepEqual(set.memory.semanticWeights, { "hashing-v1": 0.5 });
  assert.deepEqual(set.workingMemorySchema, schema);
  assert.throws(
    () =>
      loadConfig({}, {
        options: {
          memory: { rrfK: 0, textSearchConfig: "english; drop table x" },
          workingMemorySchema: { type: "array" },
        },
      }),
    (error) => {
      assert.ok(isAppError(error));
      assert.match(error.message, /option memory\.rrfK must be an integer from 1 to 1000/);
      assert.match(error.message, /option memory\.textSearchConfig must name a Postgres text/);
      assert.match(error.message, /option workingMemorySchema must describe an object/);
      return true;
    },
  );
});

Deno.test("MCP sessions' lifetime and a question's wait are typed options, bounded", () => {
  const defaults = loadConfig({}).mcp;
  assert.equal(defaults.sessionTtlMs, 24 * 3_600_000);
  assert.equal(defaults.questionWaitMs, 120_000);
  const set = loadConfig({}, {
    options: { mcp: { sessionTtlMs: 600_000, questionWaitMs: 30_000 } },
  });
  assert.equal(set.mcp.sessionTtlMs, 600_000);
  assert.equal(set.mcp.questionWaitMs, 30_000);
  // Past the edge's 150 s idle timeout a question would outlive its request.
  assert.throws(
    () => loadConfig({}, { options: { mcp: { questionWaitMs: 200_000 } } }),
    /mcp\.questionWaitMs/,
  );
  assert.throws(
    () => loadConfig({}, { options: { mcp: { sessionTtlMs: 1_000 } } }),
    /mcp\.sessionTtlMs/,
  );
});
