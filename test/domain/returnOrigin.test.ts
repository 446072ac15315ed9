import { describe, expect, test } from "bun:test";
import { parseReturnOrigins } from "../../api/services/returnOrigins.ts";
import { ValidationError } from "../../domain/errors.ts";
import { isOnOrigin, MAX_RETURN_ORIGINS, parseOrigin } from "../../domain/returnOrigin.ts";

describe("parseOrigin", () => {
  test.each([
    ["https://shop.example", "https://shop.example"],
    ["https://shop.example/", "https://shop.example"],
    ["HTTPS://Shop.EXAMPLE", "https://shop.example"],
    ["https://shop.example:443", "https://shop.example"],
    ["http://shop.example:80/", "http://shop.example"],
    ["https://shop.example:8443", "https://shop.example:8443"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080"],
    ["https://[::1]:8443", "https://[::1]:8443"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ])("%s is the origin %s", (value, origin) => {
    expect(parseOrigin(value)).toEqual({ origin });
  });

  test.each([
    ["https://shop.example/thanks", "no path, query or fragment (did you mean https://shop.example?)"],
    ["https://shop.example/?", "no path, query or fragment"],
    ["https://shop.example?a=1", "no path, query or fragment"],
    ["https://shop.example#", "no path, query or fragment"],
    ["https://shop.example/#x", "no path, query or fragment"],
    ["https://u@shop.example", "no credentials"],
    ["https://u:p@shop.example", "no credentials"],
    ["https://*.shop.example", "wildcards are not supported"],
    ["*", "wildcards are not supported"],
    ["ftp://shop.example", "http or https"],
    ["javascript:alert(1)", "http or https"],
    ["data:text/html,x", "http or https"],
    ["shop.example", "not a URL"],
    ["", "not a URL"],
    ["https://", "not a URL"],
  ])("%s is refused: %s", (value, reason) => {
    const parsed = parseOrigin(value);
    expect("reason" in parsed && parsed.reason).toContain(reason);
  });
});

describe("isOnOrigin", () => {
  const origins = ["https://shop.example", "http://localhost:3000"];
  test.each([
    ["https://shop.example/thanks?order=1#top", true],
    ["https://SHOP.example:443/x", true],
    ["http://localhost:3000/done", true],
    ["http://shop.example/thanks", false],
    ["https://shop.example:8443/thanks", false],
    ["https://shop.example.attacker.example/", false],
    ["https://attacker.example/https://shop.example", false],
    ["https://sub.shop.example/", false],
    ["http://localhost:3001/", false],
    ["https://shop.example@attacker.example/", false],
  ])("%s: %p", (url, expected) => {
    expect(isOnOrigin(new URL(url), origins)).toBe(expected);
  });
  test("no origins: nothing is on them", () => expect(isOnOrigin(new URL("https://shop.example/"), [])).toBe(false));
});

describe("parseReturnOrigins", () => {
  const refusal = (value: unknown) => {
    try {
      parseReturnOrigins(value);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return { field: (error as ValidationError).field, message: (error as Error).message };
    }
    throw new Error("accepted");
  };

  test("normalises, trims, deduplicates and sorts", () => {
    expect(parseReturnOrigins([" https://b.example/ ", "https://A.example", "https://b.example:443"])).toEqual(["https://a.example", "https://b.example"]);
    expect(parseReturnOrigins([])).toEqual([]);
  });
  test("at most MAX_RETURN_ORIGINS entries", () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `https://s${i}.example`);
    expect(parseReturnOrigins(many(MAX_RETURN_ORIGINS))).toHaveLength(MAX_RETURN_ORIGINS);
    expect(refusal(many(MAX_RETURN_ORIGINS + 1))).toEqual({ field: "origins", message: `Invalid field 'origins': at most ${MAX_RETURN_ORIGINS} origins` });
  });
  test.each([[undefined], [null], ["https://shop.example"], [{ 0: "https://shop.example" }]])("%p is not a list: 400 naming 'origins'", (value) => {
    expect(refusal(value).field).toBe("origins");
  });
  test("a bad entry is named by its index", () => {
    expect(refusal(["https://a.example", 7]).field).toBe("origins[1]");
    expect(refusal(["https://a.example", "https://b.example", "https://c.example/x"])).toEqual({
      field: "origins[2]",
      message: "Invalid field 'origins[2]': an origin has no path, query or fragment (did you mean https://c.example?)",
    });
    expect(refusal([`https://${"a".repeat(2050)}.example`]).field).toBe("origins[0]");
  });
});
