/** Every relative link in README.md and docs/ leads to a file, and every #anchor to a heading. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

async function markdownFiles(): Promise<URL[]> {
  const files = [new URL("README.md", ROOT)];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.name.endsWith(".md")) files.push(new URL(`docs/${entry.name}`, ROOT));
  }
  return files;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

async function anchors(file: URL): Promise<Set<string>> {
  const text = (await Deno.readTextFile(file)).replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

Deno.test("the slug of a heading is GitHub's", () => {
  assert.equal(
    slug("The AI SDK's UI message stream (`?stream=ui`)"),
    "the-ai-sdks-ui-message-stream-streamui",
  );
  assert.equal(slug("Sign in with Supabase Auth"), "sign-in-with-supabase-auth");
});

Deno.test("README and docs/ have no broken relative links or anchors", async () => {
  const broken: string[] = [];
  for (const file of await markdownFiles()) {
    const text = (await Deno.readTextFile(file)).replace(/^```[\s\S]*?^```/gm, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [path, anchor] = target.split("#");
      const to = path ? new URL(path, file) : file;
      const where = `${file.pathname.slice(ROOT.pathname.length)} → ${target}`;
      try {
        await Deno.stat(to);
      } catch {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor && to.pathname.endsWith(".md") && !(await anchors(to)).has(anchor)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("README is what a newcomer reads in five minutes: at most 250 lines", async () => {
  const lines = (await Deno.readTextFile(new URL("../../README.md", import.meta.url)))
    .trimEnd().split("\n").length;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move reference material to docs/`);
});
