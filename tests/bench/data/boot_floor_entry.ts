/**
 * The floor of `deno task bench boot`: an entry that imports nothing and answers
 * every request `{}`, so the bench shows what Deno and the harness take alone.
 */
Deno.serve(() => Response.json({}));
