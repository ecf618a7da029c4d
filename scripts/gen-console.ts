/**
 * `npm run gen:console`: writes src/http/console-script.ts (the operator
 * console's script, as the string the HTTP app serves) from console/app.ts.
 * A test holds the file to what this writes.
 */
import { writeFileSync } from "node:fs";
import { consoleScriptSource } from "./lib/console-bundle.js";

writeFileSync("src/http/console-script.ts", await consoleScriptSource());
console.log("wrote src/http/console-script.ts");
