#include "hostctl/models_catalog.h"

#include <stddef.h>

const struct catalog_model models_catalog[] = {
	{ "qwen3:8b", "8 GB", "5.2 GB", "good default on a laptop; tools and thinking" },
	{ "qwen3:14b", "16 GB", "9.3 GB", "better plans; tools and thinking" },
	{ "qwen3-coder:30b", "24 GB", "19 GB", "coding model (MoE, 3B active); tools" },
	{ "gpt-oss:20b", "16 GB", "14 GB", "OpenAI's open-weight model; tools and reasoning" },
	{ "llama3.1:8b", "8 GB", "4.9 GB", "widely tested tool calling" },
	{ "mistral-nemo:12b", "12 GB", "7.1 GB", "128k context; tools" },
	{ "devstral:24b", "24 GB", "14 GB", "agentic coding model; tools" },
	{ NULL, NULL, NULL, NULL },
};
