// cli-sandbox: points pi's built-in providers at the model gateway.
// pi reads a provider's base URL only from models.json or an extension, not
// from the environment, so cli-sandbox-init passes this file with -e and sets
// ANTHROPIC_BASE_URL / OPENAI_BASE_URL (see docs/cli-wiring.md).
export default function (pi) {
  const anthropic = process.env.ANTHROPIC_BASE_URL;
  const openai = process.env.OPENAI_BASE_URL;
  if (anthropic) pi.registerProvider("anthropic", { baseUrl: anthropic });
  if (openai) pi.registerProvider("openai", { baseUrl: openai });
}
