/**
 * Checks every relative link in README.md, bench/README.md and docs/**\/*.md: the file it names
 * exists, and its `#anchor`, if any, is a heading of that file (GitHub's slugs). Links in code
 * (fenced blocks, inline code) and to other sites are skipped. Run: `bun scripts/check-doc-links.ts`;
 * exits 1 listing each broken link. Wired into nothing: a check to run after moving docs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith(".md") ? [path] : [];
  });
}

/** The text outside fenced code blocks and inline code, line by line. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, "");
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

const files = [join(root, "README.md"), join(root, "bench/README.md"), ...markdownFiles(join(root, "docs"))].filter(existsSync);
const broken: string[] = [];
let checked = 0;
for (const file of files) {
  const lines = prose(readFileSync(file, "utf8"));
  lines.forEach((line, i) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      checked++;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}:${i + 1}: ${target}`;
      if (!existsSync(resolved)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchors(readFileSync(resolved, "utf8")).has(anchor)) {
        broken.push(`${where} (no heading #${anchor} in ${relative(root, resolved)})`);
      }
    }
  });
}
console.log(`${checked} relative links in ${files.length} files; ${broken.length} broken`);
for (const line of broken) console.log(`  ${line}`);
process.exit(broken.length > 0 ? 1 : 0);
