/* The names of the images a run uses, beside the image the person chose
 * (what image/build.sh names them; the runner's own_image_name,
 * gw_image_name and kb_image_name). */
#ifndef CLI_SANDBOX_HOSTCTL_IMAGES_H
#define CLI_SANDBOX_HOSTCTL_IMAGES_H

#include <stdbool.h>
#include <stddef.h>

/* The CLI's own image: REPOSITORY:CLI for REPOSITORY or REPOSITORY:latest;
 * false (out "") for another tag or a digest, the operator's exact choice. */
bool image_own(const char *image, const char *cli, char *out, size_t len);

/* The gateway's: chosen when not empty, else REPOSITORY-gateway:TAG
 * (REPOSITORY-gateway:latest for an image without a tag). */
void image_gateway(const char *image, const char *chosen, char *out, size_t len);

/* The key broker's: chosen when not empty, else REPOSITORY-broker:TAG, and
 * REPOSITORY-broker:latest for a CLI's own image (one broker serves all). */
void image_broker(const char *image, const char *chosen, char *out, size_t len);

#endif
