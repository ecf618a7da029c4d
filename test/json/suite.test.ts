import { describe, expect, it } from "vitest";
import { EXPECTED_Y_REFUSALS, runJsonConformance } from "../../scripts/lib/json-conformance.js";
import { suiteDir } from "../helpers/suites.js";

const { dir, present } = suiteDir("JSONTestSuite", "test_parsing");

/**
 * Every i_ file's decision, with its reason. docs/json.md's table says the same;
 * this test pins it.
 */
export const I_DECISIONS: Record<string, "accept" | "refuse"> = {
  // Finite after rounding: accepted (a double cannot hold the digits, but the value is finite).
  "i_number_double_huge_neg_exp.json": "accept",
  "i_number_real_underflow.json": "accept",
  "i_number_too_big_neg_int.json": "accept",
  "i_number_too_big_pos_int.json": "accept",
  "i_number_very_big_negative_int.json": "accept",
  // Overflow to infinity: cannot be stored or hashed as JSON.
  "i_number_huge_exp.json": "refuse",
  "i_number_neg_int_huge_exp.json": "refuse",
  "i_number_pos_double_huge_exp.json": "refuse",
  "i_number_real_neg_overflow.json": "refuse",
  "i_number_real_pos_overflow.json": "refuse",
  // Escaped unpaired surrogates: refused by the boundary rule.
  "i_object_key_lone_2nd_surrogate.json": "refuse",
  "i_string_1st_surrogate_but_2nd_missing.json": "refuse",
  "i_string_1st_valid_surrogate_2nd_invalid.json": "refuse",
  "i_string_incomplete_surrogate_and_escape_valid.json": "refuse",
  "i_string_incomplete_surrogate_pair.json": "refuse",
  "i_string_incomplete_surrogates_escape_valid.json": "refuse",
  "i_string_invalid_lonely_surrogate.json": "refuse",
  "i_string_invalid_surrogate.json": "refuse",
  "i_string_inverted_surrogates_U+1D11E.json": "refuse",
  "i_string_lone_second_surrogate.json": "refuse",
  // Not UTF-8 (invalid sequences, overlong forms, encoded surrogates, UTF-16): refused.
  "i_string_UTF-16LE_with_BOM.json": "refuse",
  "i_string_UTF-8_invalid_sequence.json": "refuse",
  "i_string_UTF8_surrogate_U+D800.json": "refuse",
  "i_string_invalid_utf-8.json": "refuse",
  "i_string_iso_latin_1.json": "refuse",
  "i_string_lone_utf8_continuation_byte.json": "refuse",
  "i_string_not_in_unicode_range.json": "refuse",
  "i_string_overlong_sequence_2_bytes.json": "refuse",
  "i_string_overlong_sequence_6_bytes.json": "refuse",
  "i_string_overlong_sequence_6_bytes_null.json": "refuse",
  "i_string_truncated-utf-8.json": "refuse",
  "i_string_utf16BE_no_BOM.json": "refuse",
  "i_string_utf16LE_no_BOM.json": "refuse",
  // Deeper than 256 levels.
  "i_structure_500_nested_arrays.json": "refuse",
  // A byte order mark: RFC 8259 lets a parser ignore it; we refuse it, so that two texts that hash differently never parse the same.
  "i_structure_UTF-8_BOM_empty_object.json": "refuse",
};

describe.skipIf(!present)("JSONTestSuite test_parsing (../shared/suites)", () => {
  const report = present ? runJsonConformance(dir) : undefined;

  it("accepts every y_ file but the two repeated-key ones, and refuses every n_ file", () => {
    expect(report!.violations).toEqual([]);
    expect(report!.classes.y.rejected.map((o) => o.file).sort()).toEqual([...EXPECTED_Y_REFUSALS].sort());
    expect(report!.classes.n.accepted).toEqual([]);
    expect(report!.classes.y.accepted.length).toBe(93);
    expect(report!.classes.n.rejected.length).toBe(188);
  });

  it("decides every i_ file as documented", () => {
    const decided: Record<string, "accept" | "refuse"> = {};
    for (const o of report!.classes.i.accepted) decided[o.file] = "accept";
    for (const o of report!.classes.i.rejected) decided[o.file] = "refuse";
    expect(decided).toEqual(I_DECISIONS);
  });

  it("refuses the repeated-key y_ files with JSON_DUPLICATE_KEY", () => {
    for (const o of report!.classes.y.rejected) expect(o.refusal).toBe('JSON_DUPLICATE_KEY: duplicate key "a" at line 1, column 10');
  });
});
