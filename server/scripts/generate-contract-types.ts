// Writes src/generated/contract.ts: the request and response types of contract/openapi/v1.yaml,
// by the same generator (and the same options) as the Node SDK's types, so handlers and the SDK
// read one description. Run after changing the contract: npm run generate:contract-types -w server
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { generateContractTypes } from "../../sdks/node/scripts/generate-types.js";

export const SERVER_CONTRACT_TYPES = new URL("../src/generated/contract.ts", import.meta.url);

export async function serverContractTypes(): Promise<string> {
  return (await generateContractTypes())
    .replace("sdks/node/scripts/generate-types.ts", "server/scripts/generate-contract-types.ts")
    .replace("npm run generate -w sdks/node", "npm run generate:contract-types -w server");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  fs.writeFileSync(SERVER_CONTRACT_TYPES, await serverContractTypes());
  console.log(`wrote ${fileURLToPath(SERVER_CONTRACT_TYPES)}`);
}
