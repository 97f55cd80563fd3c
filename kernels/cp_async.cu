// placeholder: this variant is being written
